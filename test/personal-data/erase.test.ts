/**
 * `POST /customers/{id}/erase` (docs/api.md section 20, "Erasure"): refused with 409 naming the
 * debt while it is being worked, nothing changed; then every personal value is gone from every
 * text, JSON and date column of every table of the database, while amounts, statuses and ids stay;
 * `customer.erased` is recorded once; a second erasure changes nothing; bad input is a 400. Sealed
 * values (dates of birth, statements, stored idempotent responses) are opened for the scan; a
 * replay of a key whose stored response concerned the customer answers 410, running nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { COPY_COLUMNS, ERASED, OWNED_COLUMNS, STORED_RESPONSES } from '@dms/domain/personal-data';
import { SecretBox } from '@dms/secrets';
import { SERVICE_ENV, closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';
import { personWithHistory, type PersonFixture } from './fixture.js';

afterAll(closeHarness);

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let person: PersonFixture;
/** Another customer of the tenant created with an Idempotency-Key before the erasure, and its first response. */
const other = { body: { kind: 'individual', first_name: 'Unrelated', last_name: 'Person' }, key: 'other-customer', response: {} as object };

beforeAll(async () => {
  acme = await signedInTenant();
  person = await personWithHistory(acme.api, acme.tenant.tenantId);
  other.response = (await acme.api.post('/customers', other.body).set('Idempotency-Key', other.key).expect(201)).body;
});

/**
 * Each text, JSON or date column of every table (partitions through their parent) holding any of
 * `values`, in clear or inside a `SECRETS_KEY` ciphertext (opened), as `table.column: value`, one
 * line per value found (so a failure names what was left and where).
 */
async function valuesHeld(values: readonly string[]): Promise<string[]> {
  const db = testDb();
  const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
  const { rows } = await db.raw<{ rows: { table_name: string; column_name: string }[] }>(`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = 'public'::regnamespace
    WHERE c.table_schema = 'public' AND k.relkind IN ('r', 'p') AND NOT k.relispartition
      AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'date', 'ARRAY')
    ORDER BY 1, 2`);
  const patterns = values.map((v) => `%${v}%`);
  const found: string[] = [];
  for (const { table_name, column_name } of rows) {
    const held = (
      await db(table_name)
        .whereRaw('??::text LIKE ANY(?)', [column_name, patterns])
        .limit(5)
        .select(db.raw('??::text AS t', [column_name]))
    ).map((r: { t: string }) => r.t);
    for (const v of values)
      for (const text of held.filter((t) => t.includes(v)).slice(0, 1)) found.push(`${table_name}.${column_name}: ${v} in ${text.slice(0, 400)}`);
    if (held.length) continue;
    const sealed: string[] = await db(table_name).whereRaw(`??::text LIKE 'v1.%'`, [column_name]).pluck(column_name);
    for (const v of values) if (sealed.some((c) => box.open(c).includes(v))) found.push(`${table_name}.${column_name}: ${v} (sealed)`);
  }
  return found;
}

/** `table.column` of every column holding any of `values` (`valuesHeld`), each once. */
async function columnsHolding(values: readonly string[]): Promise<string[]> {
  return [...new Set((await valuesHeld(values)).map((line) => line.slice(0, line.indexOf(':'))))];
}

describe('POST /customers/{id}/erase', () => {
  test('a missing or empty reason is 400 naming it, nothing changed', async () => {
    for (const body of [{}, { reason: '' }, { reason: 'x', extra: 1 }]) {
      const res = await acme.api.post(`/customers/${person.customerId}/erase`, body).expect(400);
      expect(res.body.param).toMatch(/reason|extra/);
    }
    expect(await columnsHolding(person.values)).not.toEqual([]);
  });

  test('the date of birth is stored encrypted: the raw row holds a ciphertext, not the date', async () => {
    const dob = person.values[7]!;
    const [row] = await testDb()('customers').where({ id: person.customerId }).select('date_of_birth', 'date_of_birth_encrypted');
    expect(row.date_of_birth).toBeNull();
    expect(row.date_of_birth_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(dob);
    expect((await acme.api.get(`/customers/${person.customerId}`).expect(200)).body.date_of_birth).toBe(dob);
  });

  test("the statement's money groups are stored encrypted; household and disposable income stay in clear", async () => {
    const [row] = await testDb()('income_and_expenditures').where({ customer_id: person.customerId });
    expect(row).toMatchObject({ income: null, fixed_costs: null, flexible_costs: null, priority_debts: null, other_debts: null });
    expect(row.details_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(person.values[9]!);
    expect(Number(row.disposable_income)).toBe(Number(person.values[9]) - Number(person.values[10]));
    const [statement] = (await acme.api.get(`/debts/${person.debtId}/income_and_expenditures`).expect(200)).body.data;
    expect(statement.income.earnings.amount).toBe(Number(person.values[9]));
  });

  test('while a debt is being worked it is 409 naming the debt, and nothing changes', async () => {
    const res = await acme.api.post(`/customers/${person.customerId}/erase`, { reason: 'Article 17 request' }).expect(409);
    expect(res.body.code).toBe('invalid_state_transition');
    expect(res.body.message).toContain(person.debtId);
    const customer = await acme.api.get(`/customers/${person.customerId}`).expect(200);
    expect(customer.body.first_name).toBe(person.values[0]);
  });

  test('once no debt is worked, no personal value is left in any column of any table; the ledger stays', async () => {
    await acme.api.post(`/debts/${person.debtId}/withdraw`, { reason: 'closing the file' }).expect(200);
    // Every column holding the values is one the registry lists: nothing is left out of the erasure.
    const holding = await columnsHolding(person.values);
    const registered = [...OWNED_COLUMNS, ...COPY_COLUMNS, STORED_RESPONSES].map((c) => `${c.table}.${c.column}`);
    expect(holding.length).toBeGreaterThan(5);
    // Among them: the statement's figures in its event, the receiver's echo in the delivery errors,
    // and, sealed, the date of birth, the statement's money groups and the stored idempotent responses.
    expect(holding).toEqual(
      expect.arrayContaining([
        'events.data',
        'webhook_deliveries.last_error',
        'webhook_delivery_attempts.error',
        'customers.date_of_birth_encrypted',
        'income_and_expenditures.details_encrypted',
        'idempotency_keys.response_body',
      ]),
    );
    expect(holding.filter((c) => !registered.includes(c))).toEqual([]);
    const before = (await acme.api.get(`/debts/${person.debtId}`).expect(200)).body;
    const payments = (await acme.api.get(`/debts/${person.debtId}/payments`).expect(200)).body.data;

    const res = await acme.api.post(`/customers/${person.customerId}/erase`, { reason: 'Article 17 request' }).expect(200);
    expect(res.body).toMatchObject({ id: person.customerId, first_name: ERASED, last_name: ERASED, date_of_birth: null, metadata: { note: ERASED } });
    expect(await testDb()('customers').where({ id: person.customerId }).first('date_of_birth', 'date_of_birth_encrypted')).toEqual({
      date_of_birth: null,
      date_of_birth_encrypted: null,
    });
    expect(await valuesHeld(person.values)).toEqual([]);

    const after = (await acme.api.get(`/debts/${person.debtId}`).expect(200)).body;
    expect(after.summary).toEqual(before.summary);
    expect(after.status.value).toBe(before.status.value);
    expect((await acme.api.get(`/debts/${person.debtId}/payments`).expect(200)).body.data).toEqual(payments);
    const communication = (await acme.api.get(`/communications/${person.communicationId}`).expect(200)).body;
    expect(communication).toMatchObject({ body: ERASED, subject: ERASED, status: 'received' });
    // The statement keeps its figure of disposable income; what the person earns and spends is gone.
    const [statement] = (await acme.api.get(`/debts/${person.debtId}/income_and_expenditures`).expect(200)).body.data;
    const entries = ['income', 'fixed_costs', 'flexible_costs', 'priority_debts', 'other_debts'].flatMap((g) => Object.values(statement[g]));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => JSON.stringify(e) === JSON.stringify({ amount: 0, frequency: 'monthly', monthly: 0 }))).toBe(true);
    expect(statement.disposable_income).toBe(Number(person.values[9]) - Number(person.values[10]));
    // Its stored event (so its webhook body) is cleared the same way, totals zeroed.
    const [event] = await testDb()('events')
      .where({ type: 'income_and_expenditure.created' })
      .whereRaw(`data->'object'->>'id' = ?`, [statement.id])
      .pluck('data');
    expect(Object.values(event.object.totals)).toEqual(Object.values(statement.totals).map(() => 0));
    expect(event.object.income).toEqual(statement.income);
    expect(event.object.disposable_income).toBe(statement.disposable_income);
    // The delivery errors keep what the receiver said, less the person.
    const errors = await testDb()('webhook_deliveries').where({ tenant_id: acme.tenant.tenantId }).whereNotNull('last_error').pluck('last_error');
    // (the full name "first last" is a value of its own, replaced whole)
    expect(errors).toEqual([`HTTP 422: {"error":"no account for ${ERASED}"}`]);
  });

  test("a replay of a key whose stored response concerned the customer is 410 idempotency_response_erased and runs nothing; another customer's replays", async () => {
    const erased = await testDb()('idempotency_keys')
      .where({ tenant_id: acme.tenant.tenantId })
      .whereIn(
        'key',
        person.idempotent.map((r) => r.key),
      )
      .select('response_body', 'response_headers', 'erased_at');
    expect(erased).toHaveLength(2);
    expect(erased.every((r) => r.response_body === null && r.response_headers === null && r.erased_at !== null)).toBe(true);
    for (const r of person.idempotent) {
      const res = await acme.api[r.method](r.path, r.body).set('Idempotency-Key', r.key).expect(410);
      expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'idempotency_response_erased', param: 'Idempotency-Key' });
      expect(JSON.stringify(res.body)).not.toContain(person.values[0]!);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    // Nothing ran again: no second customer, the erased one unchanged.
    expect((await acme.api.get(`/customers/${person.customerId}`).expect(200)).body.metadata).toEqual({ note: ERASED });
    expect(await testDb()('customers').where({ tenant_id: acme.tenant.tenantId, first_name: person.values[0] }).pluck('id')).toEqual([]);
    // The same key with another request is still 422: the key stays taken.
    const [patch] = person.idempotent.filter((r) => r.method === 'patch');
    expect(
      (
        await acme.api
          .patch(patch!.path, { metadata: { x: '1' } })
          .set('Idempotency-Key', patch!.key)
          .expect(422)
      ).body.code,
    ).toBe('idempotency_key_reused');
    // A response about someone else, stored before the erasure, still replays.
    const again = await acme.api.post('/customers', other.body).set('Idempotency-Key', other.key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(other.response);
  });

  test('customer.erased is recorded once; a second erasure answers the same customer and records nothing', async () => {
    const again = await acme.api.post(`/customers/${person.customerId}/erase`, { reason: 'again' }).expect(200);
    expect(again.body.first_name).toBe(ERASED);
    const types = await eventTypesFor(acme.tenant.tenantId, person.customerId);
    expect(types.filter((t) => t === 'customer.erased')).toHaveLength(1);
    const [row] = await testDb()('customers').where({ id: person.customerId }).select('erasure_reason', 'erased_at');
    expect(row.erasure_reason).toBe('Article 17 request');
    expect(row.erased_at).not.toBeNull();
  });
});
