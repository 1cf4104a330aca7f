/**
 * Migration 051_balance_ledger (docs/api.md section 14) on data made with the old schema: a
 * database migrated to 040, payouts whose items name them (two accounts' runs interleaved in
 * `seq`), a succeeded payment no run took yet, a refund half itemised and a payment in a currency
 * without an account, then migrated to the latest schema. Each old payout reads back exactly its
 * items through its range; the payment and the rest of the refund become items after the
 * account's last payout, and the next run (the domain's own) pays out just those.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { payoutItems, runPayoutsNow, type PayoutRow } from '@dms/domain/payouts';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();

const T = 'ten_old';

/** A payout row as the old run wrote it (totals only; the items are inserted beside it). */
const payout = (id: string, org: string, amount: number, gross: number, refunds: number, fees: number, adjustments: number, count: number) => ({
  id,
  tenant_id: T,
  organisation_id: org,
  currency: 'GBP',
  status: 'pending',
  amount,
  gross,
  refunds,
  fees,
  adjustments,
  item_count: count,
  period_start: new Date(),
  period_end: new Date(),
  payout_date: '2026-01-01',
});

/** An item as the old run wrote it, naming its payout. */
const item = (id: string, payoutId: string, org: string, type: string, amount: number, fee: number, paymentId: string | null, debtId: string | null) => ({
  id,
  tenant_id: T,
  payout_id: payoutId,
  organisation_id: org,
  currency: 'GBP',
  type,
  amount,
  fee,
  net: amount - fee,
  payment_id: paymentId,
  debt_id: debtId,
});

test('old payouts keep exactly their items as ranges; payments and refunds no run took become the next payout', async () => {
  const db = await scratch.at('040_imports');
  await db('tenants').insert({ id: T, name: 'Old' });
  await db('organisations').insert([
    { id: 'org_a', tenant_id: T, name: 'A', configurations: { payouts: { fee_basis_points: 250, fee_minimum: 20 } } },
    { id: 'org_b', tenant_id: T, name: 'B' },
  ]);
  await db('customers').insert({ id: 'cus_old', tenant_id: T, kind: 'individual' });
  const debt = (id: string, org: string, currency: string) => ({
    id,
    tenant_id: T,
    customer_id: 'cus_old',
    organisation_id: org,
    currency,
    status: 'resumed',
    amount_principal: 1_000_000,
  });
  await db('debts').insert([debt('deb_a', 'org_a', 'GBP'), debt('deb_b', 'org_b', 'GBP'), debt('deb_e', 'org_b', 'EUR')]);
  const pay = (id: string, debtId: string, amount: number, status = 'succeeded', refunded = 0, currency = 'GBP') => ({
    id,
    tenant_id: T,
    debt_id: debtId,
    amount,
    currency,
    status,
    amount_refunded: refunded,
    transaction_at: new Date(),
  });
  await db('payments').insert([
    pay('pay_1', 'deb_a', 10000, 'partially_refunded', 500),
    pay('pay_2', 'deb_a', 2000),
    pay('pay_3', 'deb_a', 1030),
    pay('pay_4', 'deb_a', 700, 'pending'),
    pay('pay_b', 'deb_b', 4000),
    pay('pay_e', 'deb_e', 10000, 'succeeded', 0, 'EUR'),
  ]);
  await db('payout_accounts').insert([
    { id: 'pacc_a', tenant_id: T, organisation_id: 'org_a', currency: 'GBP', next_run_at: new Date() },
    { id: 'pacc_b', tenant_id: T, organisation_id: 'org_b', currency: 'GBP', next_run_at: new Date() },
  ]);
  // Runs in this order, each one statement as the old run was: A's first, B's, A's second.
  await db('payouts').insert([
    payout('po_a1', 'org_a', 9750, 10000, 0, 250, 0, 1),
    payout('po_b1', 'org_b', 3940, 4000, 0, 60, 0, 1),
    payout('po_a2', 'org_a', 1650, 2000, 300, 50, 0, 2),
  ]);
  await db('balance_items').insert([item('bi_a1', 'po_a1', 'org_a', 'payment', 10000, 250, 'pay_1', 'deb_a')]);
  await db('balance_items').insert([item('bi_b1', 'po_b1', 'org_b', 'payment', 4000, 60, 'pay_b', 'deb_b')]);
  await db('balance_items').insert([
    item('bi_a2', 'po_a2', 'org_a', 'payment', 2000, 50, 'pay_2', 'deb_a'),
    item('bi_a3', 'po_a2', 'org_a', 'refund', -300, 0, 'pay_1', 'deb_a'),
  ]);
  const itemsBefore = await db('balance_items').orderBy('seq').select('id', 'type', 'amount', 'fee', 'net', 'payment_id', 'debt_id');

  await migrateLatest(db);

  const ofPayout = async (id: string) => {
    const row = (await db('payouts').where({ id }).first()) as PayoutRow;
    return (await payoutItems(db, T, row).orderBy('balance_items.seq')).map((r: { id: string; payout_id: string }) => [r.id, r.payout_id]);
  };
  expect(await ofPayout('po_a1')).toEqual([['bi_a1', 'po_a1']]);
  expect(await ofPayout('po_b1')).toEqual([['bi_b1', 'po_b1']]);
  expect(await ofPayout('po_a2')).toEqual([
    ['bi_a2', 'po_a2'],
    ['bi_a3', 'po_a2'],
  ]);
  // The old items are unchanged.
  expect(
    await db('balance_items')
      .whereIn(
        'id',
        itemsBefore.map((i) => i.id),
      )
      .orderBy('seq')
      .select(Object.keys(itemsBefore[0]!)),
  ).toEqual(itemsBefore);
  const accounts = await db('payout_accounts').orderBy('id').select('id', 'items_through');
  const last = await db('payouts').orderBy('id').select('id', 'last_item_seq');
  const lastOf = (id: string) => Number(last.find((p) => p.id === id)!.last_item_seq);
  expect(accounts.map((a) => [a.id, Number(a.items_through)])).toEqual([
    ['pacc_a', lastOf('po_a2')],
    ['pacc_b', lastOf('po_b1')],
  ]);

  // What no run took: pay_3 with its fee by org_a's settings (1030 at 250 bp: 25.75 → 26), the
  // 200 of pay_1's refund not yet itemised, and pay_e in EUR with the default fee (150 bp: 150).
  const made = await db('balance_items')
    .whereNotIn(
      'id',
      itemsBefore.map((i) => i.id),
    )
    .orderBy('seq')
    .select('organisation_id', 'currency', 'type', 'amount', 'fee', 'net', 'payment_id', 'debt_id');
  expect(made).toEqual(
    expect.arrayContaining([
      { organisation_id: 'org_a', currency: 'GBP', type: 'payment', amount: 1030, fee: 26, net: 1004, payment_id: 'pay_3', debt_id: 'deb_a' },
      { organisation_id: 'org_a', currency: 'GBP', type: 'refund', amount: -200, fee: 0, net: -200, payment_id: 'pay_1', debt_id: 'deb_a' },
      { organisation_id: 'org_b', currency: 'EUR', type: 'payment', amount: 10000, fee: 150, net: 9850, payment_id: 'pay_e', debt_id: 'deb_e' },
    ]),
  );
  expect(made).toHaveLength(3);

  // The next runs pay out just those: A's payment less the rest of the refund; B's EUR payment.
  const [a] = await runPayoutsNow(db, T, 'org_a');
  expect(a).toMatchObject({ gross: 1030, refunds: 200, fees: 26, adjustments: 0, amount: 804, item_count: 2 });
  const b = await runPayoutsNow(db, T, 'org_b');
  expect(b.map((p) => [p.currency, p.gross, p.fees, p.item_count])).toEqual([['EUR', 10000, 150, 1]]);
  expect(await runPayoutsNow(db, T, 'org_a')).toEqual([]);
});
