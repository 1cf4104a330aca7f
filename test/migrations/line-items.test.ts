/**
 * Migration 010_line_items (docs/api.md section 8) on data made with the old schema: a database
 * migrated to 009, debts and payments inserted as the old code wrote them, then migrated to the
 * latest schema. Each debt's breakdown becomes line items and its summary does not change.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old breakdowns become line items with the same summary; old payments are succeeded', async () => {
  const db = await scratch.at('009_delivery_success');
  await insertOldParties(db);
  const debt = (id: string, principal: number, interest: number, fees: number, paid: number, status: string) => ({
    id,
    tenant_id: 'ten_old',
    customer_id: 'cus_old',
    organisation_id: 'org_old',
    currency: 'GBP',
    status,
    amount_principal: principal,
    amount_interest: interest,
    amount_fees: fees,
    amount_paid: paid,
  });
  await db('debts').insert([debt('deb_a', 10000, 250, 99, 0, 'prepared'), debt('deb_b', 5000, 0, 0, 5000, 'paid'), debt('deb_c', 700, 0, 30, 200, 'resumed')]);
  await db('payments').insert([
    { id: 'pay_b', tenant_id: 'ten_old', debt_id: 'deb_b', amount: 5000, currency: 'GBP', transaction_at: new Date() },
    { id: 'pay_c', tenant_id: 'ten_old', debt_id: 'deb_c', amount: 200, currency: 'GBP', transaction_at: new Date() },
  ]);
  const summaries = async () =>
    db!('debts').orderBy('id').select('id', 'amount_principal', 'amount_interest', 'amount_fees', 'amount_paid', 'amount_total', 'amount_remaining');
  const before = await summaries();

  await migrateLatest(db);

  expect((await summaries()).map((r) => ({ ...r }))).toEqual(before);
  const items = await db('line_items').orderBy(['debt_id', 'kind']).select('debt_id', 'kind', 'amount', 'currency');
  expect(items).toEqual([
    { debt_id: 'deb_a', kind: 'debt', amount: 10000, currency: 'GBP' },
    { debt_id: 'deb_a', kind: 'fee', amount: 99, currency: 'GBP' },
    { debt_id: 'deb_a', kind: 'interest', amount: 250, currency: 'GBP' },
    { debt_id: 'deb_b', kind: 'debt', amount: 5000, currency: 'GBP' },
    { debt_id: 'deb_c', kind: 'debt', amount: 700, currency: 'GBP' },
    { debt_id: 'deb_c', kind: 'fee', amount: 30, currency: 'GBP' },
  ]);
  // The new summary columns, summed from the items, give the same totals.
  for (const row of await db('debts').select('id', 'amount_total', 'amount_vat', 'amount_discounts', 'amount_refunds')) {
    const { sum } = (await db('line_items').where({ debt_id: row.id }).sum({ sum: 'amount' }))[0]!;
    expect(Number(sum)).toBe(row.amount_total);
    expect([row.amount_vat, row.amount_discounts, row.amount_refunds]).toEqual([0, 0, 0]);
  }
  expect((await db('line_items').select('id')).every((r: { id: string }) => /^li_[0-9A-Za-z]{24}$/.test(r.id))).toBe(true);
  expect(await db('payments').orderBy('id').select('id', 'status', 'amount_refunded')).toEqual([
    { id: 'pay_b', status: 'succeeded', amount_refunded: 0 },
    { id: 'pay_c', status: 'succeeded', amount_refunded: 0 },
  ]);
  const counters = await db('list_counters').where({ tenant_id: 'ten_old', list: 'line_items' }).sum({ n: 'count' });
  expect(Number(counters[0]!.n)).toBe(6);
});
