/**
 * `npm run seed` (tools/src/seed.ts) against the test database, small: it prints working client
 * credentials, and what it loaded is visible through the API with the counts, events and balances
 * the API itself would have written.
 */
import { DEBT_STATUSES } from '@dms/domain/debts';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import { AUDIENCE, SERVICE_ENV, apiAs, closeHarness, testDb } from '../support/harness.js';
import { runScript, type CliRun } from '../support/run-script.js';

afterAll(closeHarness);

interface SeedOutput {
  client_id: string;
  client_secret: string;
  audience: string;
  token_url: string;
  tenant_id: string;
  loaded: {
    organisations: number;
    customers: number;
    debts: number;
    payments: number;
    money_stories: number;
    payouts: Record<string, number>;
    worked_debts: number;
    communications: number;
  };
}

function runSeed(args: string[]): Promise<CliRun> {
  return runScript('tools/dist/seed.js', args);
}

let out: SeedOutput;
let api: ReturnType<typeof apiAs>;

beforeAll(async () => {
  const run = await runSeed(['--organisations', '3', '--customers', '20', '--debts', '50', '--seed', '7']);
  expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = run.stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  out = JSON.parse(lines[0]!);
  const token = await request(out.token_url)
    .post('')
    .auth(out.client_id, out.client_secret)
    .type('form')
    .send({ grant_type: 'client_credentials', audience: out.audience })
    .expect(200);
  api = apiAs(token.body.access_token);
});

test('it prints the credentials of a client that gets tokens for the API', () => {
  expect(out).toMatchObject({
    audience: AUDIENCE,
    token_url: `${SERVICE_ENV.AUTH_ISSUER}/oauth/token`,
    loaded: { organisations: 3, customers: 20, debts: 50 },
  });
  expect(out.client_id).toMatch(/^cli_/);
  expect(out.tenant_id).toMatch(/^ten_[0-9A-Za-z]{24}$/);
});

test('the API lists exactly what was loaded', async () => {
  // The worked debts (one per status) include a deleted one, which lists hide.
  for (const [list, n] of [
    ['organisations', 3],
    ['customers', 20],
    ['debts', 50 + out.loaded.worked_debts - 1],
  ] as const) {
    const res = await api.get(`/${list}?limit=100`).expect(200);
    expect(res.headers['x-total-count']).toBe(String(n));
    expect(res.body.data).toHaveLength(n);
  }
});

test('the data is plausible: names, contacts, kinds, currencies, amounts in minor units, a status mix', async () => {
  const customers = (await api.get('/customers?limit=100').expect(200)).body.data as Array<Record<string, unknown>>;
  for (const c of customers) {
    expect(typeof c.full_name).toBe('string');
    expect((c.contact_details as unknown[]).length).toBeGreaterThan(0);
  }
  const debts = (await api.get('/debts?limit=100').expect(200)).body.data as Array<{
    currency: string;
    kind: string;
    account_number: string;
    customer: string;
    organisation: string;
    status: { value: string };
    summary: { amount_total: number; amount_paid: number; amount_remaining: number; breakdown: { principal: number; interest: number; fees: number } };
  }>;
  const customerIds = new Set(customers.map((c) => c.id));
  for (const d of debts) {
    expect(['GBP', 'EUR', 'USD']).toContain(d.currency);
    expect(typeof d.kind).toBe('string');
    expect(d.account_number).toMatch(/^[A-Z]{2}-\d{8}$/);
    expect(customerIds.has(d.customer)).toBe(true);
    const { breakdown, amount_total, amount_paid, amount_remaining } = d.summary;
    expect(Number.isInteger(breakdown.principal) && breakdown.principal > 0).toBe(true);
    expect(amount_total).toBe(breakdown.principal + breakdown.interest + breakdown.fees);
    expect(amount_remaining).toBe(amount_total - amount_paid);
  }
  expect(new Set(debts.map((d) => d.status.value)).size).toBeGreaterThan(2);
});

test('events and counters were written as the API writes them', async () => {
  const rows: Array<{ type: string; n: string }> = await testDb()('events')
    .where({ tenant_id: out.tenant_id })
    .groupBy('type')
    .select('type', testDb().raw('count(*) as n'));
  const byType = Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  expect(byType).toMatchObject({ 'organisation.created': 3, 'customer.created': 20, 'debt.created': 50 + out.loaded.worked_debts });
  expect(byType['payment.created'] ?? 0).toBe(out.loaded.payments);
});

test('the money of sections 8 and 9: invoices with line items, payment outcomes, plans in every status', async () => {
  expect(out.loaded.money_stories).toBeGreaterThanOrEqual(9);
  const invoices = await testDb()('invoices').where({ tenant_id: out.tenant_id }).select('id', 'debt_id');
  expect(invoices.length).toBeGreaterThan(0);
  const invoice = (await api.get(`/debts/${invoices[0].debt_id}/invoices/${invoices[0].id}`).expect(200)).body;
  expect(invoice.line_items.length).toBe(2);
  const items = (await api.get(`/debts/${invoices[0].debt_id}/line_items`).expect(200)).body.data as Array<{ invoice: string | null; kind: string }>;
  expect(
    items
      .filter((i) => i.invoice === invoice.id)
      .map((i) => i.kind)
      .sort(),
  ).toEqual(['fee', 'interest']);

  const payments = (await api.get('/payments?limit=100').expect(200)).body.data as Array<{ status: string }>;
  const paymentStatuses = new Set(payments.map((p) => p.status));
  for (const status of ['succeeded', 'pending', 'failed', 'refunded', 'partially_refunded'])
    expect({ status, seeded: paymentStatuses.has(status) }).toEqual({ status, seeded: true });

  const plans = (await api.get('/payment_plans?limit=100').expect(200)).body.data as Array<{
    id: string;
    debt: string;
    status: string;
    schedule: Array<{ status: string }>;
  }>;
  expect(new Set(plans.map((p) => p.status))).toEqual(new Set(['active', 'completed', 'broken', 'canceled']));
  for (const p of plans) {
    const debt = (await api.get(`/debts/${p.debt}`).expect(200)).body;
    // An active plan proposed while the engine worked the debt is `arranging` until its first instalment (section 12).
    const expected = { active: debt.status.value === 'arranging' ? 'arranging' : 'paying', completed: 'paid', broken: 'defaulted', canceled: 'resumed' }[
      p.status
    ];
    expect({ plan: p.status, debt: debt.status.value }).toEqual({ plan: p.status, debt: expected });
    if (p.status === 'broken') {
      expect(p.schedule[0]!.status).toBe('missed');
      expect(debt.status).toMatchObject({ whodunnit: 'system' });
    }
  }
});

test('sections 12 and 13: debts in every status, communications of every channel and direction', async () => {
  const debts = (await api.get('/debts?limit=100').expect(200)).body.data as Array<{ status: { value: string } }>;
  const statuses = new Set(debts.map((d) => d.status.value));
  // `deleted` is hidden from lists and `open` is never produced (legacy).
  for (const status of DEBT_STATUSES.filter((x) => x !== 'deleted' && x !== 'open'))
    expect({ status, seeded: statuses.has(status) }).toEqual({ status, seeded: true });
  expect(await testDb()('debts').where({ tenant_id: out.tenant_id, status: 'deleted' }).first()).toBeDefined();
  const coms = (await api.get('/communications?limit=100').expect(200)).body.data as Array<{ delivery_method: string; direction: string; status: string }>;
  const kinds = new Set(coms.map((c) => `${c.delivery_method} ${c.direction}`));
  for (const kind of ['email outbound', 'sms outbound', 'letter outbound', 'email inbound', 'sms inbound']) expect(kinds).toContain(kind);
  expect(new Set(coms.map((c) => c.status))).toEqual(new Set(['sent', 'delivered', 'failed', 'bounced', 'received']));
  expect(coms).toHaveLength(out.loaded.communications);
});

test('bad flags fail with nothing on stdout', async () => {
  const cases = [
    ['--debts', 'many'],
    ['--customers', '0'],
    ['--colour', 'red'],
  ];
  const runs = await Promise.all(cases.map(runSeed));
  runs.forEach((run, i) => expect({ args: cases[i], failed: run.code !== 0, stdout: run.stdout }).toEqual({ args: cases[i], failed: true, stdout: '' }));
});

test('payouts in every status (docs/api.md section 14), each with its items', async () => {
  expect(Object.keys(out.loaded.payouts).sort()).toEqual(['failed', 'in_transit', 'paid', 'pending']);
  const payouts = (await api.get('/payouts?limit=100').expect(200)).body.data as Array<{ id: string; status: { value: string }; item_count: number }>;
  expect(new Set(payouts.map((p) => p.status.value))).toEqual(new Set(['pending', 'in_transit', 'paid', 'failed']));
  for (const p of payouts) expect((await api.get(`/payouts/${p.id}/items?limit=1`).expect(200)).headers['x-total-count']).toBe(String(p.item_count));
});
