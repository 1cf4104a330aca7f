/**
 * Payouts (docs/api.md section 14) over HTTP: succeeded payments become a payout with their
 * platform fee (basis points rounded half up, a minimum per payment), its items and reconciliation
 * CSV; tenants read payouts (list, search, retrieve, items, expand) and never change them;
 * operators move them (`in_transit`, `paid`, `failed` with a reason) and a forbidden move is 409;
 * a failed payout's money and a late refund go to the next payout, and a negative total carries
 * forward; bad settings are 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';
import { paidDebt, payoutTenant, runNow, tenantRowsOf } from './support.js';

afterAll(closeHarness);

let t: Awaited<ReturnType<typeof payoutTenant>>;
let payoutId: string;
let debtId: string;
let payments: string[];

beforeAll(async () => {
  t = await payoutTenant();
  ({ debtId, payments } = await paidDebt(t.api, t.parties, [10000, 1030, 1010, 500], 'GBP', { account_number: 'ACC, "7"' }));
  payoutId = (await runNow(t.ops, t.parties.organisationId))[0]!;
});

describe('a payout run', () => {
  test('turns succeeded payments into a pending payout: gross, fees rounded half up with a minimum, net', async () => {
    const payout = (await t.api.get(`/payouts/${payoutId}`).expect(200)).body;
    // 250 bp: 10000 → 250; 1030 → 25.75 → 26; 1010 → 25.25 → 25; 500 → 12.5 → 13, below the minimum → 20.
    expect(payout).toMatchObject({
      id: expect.stringMatching(/^po_[0-9A-Za-z]{24}$/),
      object: 'payout',
      organisation_id: t.parties.organisationId,
      organisation: t.parties.organisationId,
      currency: 'GBP',
      gross: 12540,
      refunds: 0,
      fees: 321,
      adjustments: 0,
      amount: 12219,
      item_count: 4,
      status: { value: 'pending', reason: null, whodunnit: 'system' },
      payout_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      metadata: {},
    });
    expect(await eventTypesFor(t.tenant.tenantId, payoutId)).toEqual(['payout.created']);
  });

  test('each payment is one item of exactly one payout: a second run finds nothing', async () => {
    expect(await runNow(t.ops, t.parties.organisationId)).toEqual([]);
    expect(await testDb()('balance_items').whereIn('payment_id', payments)).toHaveLength(4);
    const listed = (await t.api.get(`/payouts/${payoutId}/items?limit=10`).expect(200)).body.data;
    expect(listed.map((i: { payment: string }) => i.payment).sort()).toEqual([...payments].sort());
    expect(new Set(listed.map((i: { payout: string }) => i.payout))).toEqual(new Set([payoutId]));
  });

  test('the fee is fixed when the payment succeeds: settings changed before the run apply to later payments only', async () => {
    const o = await payoutTenant({ fee_basis_points: 1000, fee_minimum: 0 });
    await paidDebt(o.api, o.parties, [10000]);
    const made = await testDb()('balance_items').where({ tenant_id: o.tenant.tenantId }).select('type', 'amount', 'fee', 'net');
    expect(made).toEqual([{ type: 'payment', amount: 10000, fee: 1000, net: 9000 }]);
    await o.api.patch(`/organisations/${o.parties.organisationId}`, { configurations: { payouts: { fee_basis_points: 0, fee_minimum: 0 } } }).expect(200);
    await paidDebt(o.api, o.parties, [5000]);
    const [id] = await runNow(o.ops, o.parties.organisationId);
    expect((await o.api.get(`/payouts/${id}`).expect(200)).body).toMatchObject({ gross: 15000, fees: 1000, amount: 14000, item_count: 2 });
  });

  test('items list newest first with the payout as total, and expand[]=payment', async () => {
    const res = await t.api.get(`/payouts/${payoutId}/items?limit=3&expand[]=payment`).expect(200);
    expect(res.headers['x-total-count']).toBe('4');
    expect(res.body.data).toHaveLength(3);
    const [first] = res.body.data;
    expect(first).toMatchObject({ object: 'balance_item', payout: payoutId, type: 'payment', amount: 500, fee: 20, net: 480, debt: debtId });
    expect(first.payment).toMatchObject({ id: payments[3], object: 'payment', amount: 500 });
    const next = await t.api.get(`/payouts/${payoutId}/items?limit=3&after=${res.body.data[2].id}`).expect(200);
    expect(next.body.data.map((i: { payment: string }) => i.payment)).toEqual([payments[0]]);
  });

  test('items.csv is the RFC 4180 reconciliation file, one row per item', async () => {
    const res = await t.api.get(`/payouts/${payoutId}/items.csv`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('item,type,payment,debt,customer_reference,currency,gross,fee,net,created_at');
    expect(lines).toHaveLength(6); // header, 4 rows, the empty string after the last CRLF
    // The customer reference holds a comma and quotes: quoted, its quotes doubled (RFC 4180 section 2).
    expect(lines[1]).toMatch(new RegExp(`^bi_[0-9A-Za-z]{24},payment,${payments[0]},${debtId},"ACC, ""7""",GBP,10000,250,9750,2`));
  });

  test('items.csv neutralises a customer reference a spreadsheet would run as a formula (OWASP CSV injection)', async () => {
    const o = await payoutTenant();
    await paidDebt(o.api, o.parties, [2000], 'GBP', { account_number: '=HYPERLINK("https://evil.example","Pay")' });
    const [id] = await runNow(o.ops, o.parties.organisationId);
    const row = (await o.api.get(`/payouts/${id}/items.csv`).expect(200)).text.split('\r\n')[1]!;
    expect(row).toContain(`,"'=HYPERLINK(""https://evil.example"",""Pay"")",GBP,2000,`);
  });

  test('list, search and expand[]=organisation', async () => {
    const list = await t.api.get('/payouts?expand[]=organisation').expect(200);
    expect(list.headers['x-total-count']).toBe('1');
    expect(list.body.data[0].organisation).toMatchObject({ id: t.parties.organisationId, object: 'organisation' });
    const found = await t.api.get(`/payouts/search?query=${encodeURIComponent('status:pending AND currency:GBP AND amount>12000')}`).expect(200);
    expect(found.body.data.map((p: { id: string }) => p.id)).toEqual([payoutId]);
    const none = await t.api.get(`/payouts/search?query=${encodeURIComponent('status:paid')}`).expect(200);
    expect(none.body.data).toEqual([]);
    const bad = await t.api.get(`/payouts/search?query=${encodeURIComponent('colour:red')}`).expect(400);
    expect(bad.body.code).toBe('invalid_search_query');
  });
});

describe('items made when the money moves', () => {
  test('a pending payment has no item until it succeeds; a failed one never has one', async () => {
    const o = await payoutTenant({ fee_basis_points: 100, fee_minimum: 0 });
    const { debtId: debt } = await paidDebt(o.api, o.parties, []);
    const pending = async (amount: number) =>
      (await o.api.post(`/debts/${debt}/payments`, { amount, currency: 'GBP', status: 'pending' }).expect(201)).body.id as string;
    const [won, lost] = [await pending(3000), await pending(4000)];
    const itemsOf = (ids: string[]) => testDb()('balance_items').whereIn('payment_id', ids).select('payment_id', 'type', 'amount', 'fee');
    expect(await itemsOf([won, lost])).toEqual([]);
    await o.api.patch(`/debts/${debt}/payments/${won}`, { status: 'succeeded' }).expect(200);
    await o.api.patch(`/debts/${debt}/payments/${lost}`, { status: 'failed' }).expect(200);
    expect(await itemsOf([won, lost])).toEqual([{ payment_id: won, type: 'payment', amount: 3000, fee: 30 }]);
    const [id] = await runNow(o.ops, o.parties.organisationId);
    expect((await o.api.get(`/payouts/${id}`).expect(200)).body).toMatchObject({ gross: 3000, fees: 30, amount: 2970, item_count: 1 });
  });
});

describe('operator moves', () => {
  test('in_transit then paid, each with its event and whodunnit; a forbidden move is 409 and changes nothing', async () => {
    const moved = await t.ops.post(`/operator/payouts/${payoutId}/status`, { status: 'in_transit' }).expect(200);
    expect(moved.body.status).toMatchObject({ value: 'in_transit', whodunnit: `operator:${t.operatorId}` });
    await t.ops.post(`/operator/payouts/${payoutId}/status`, { status: 'paid', reason: 'BACS ref 991' }).expect(200);
    const before = await tenantRowsOf('payouts', t.tenant.tenantId);
    const refused = await t.ops.post(`/operator/payouts/${payoutId}/status`, { status: 'failed', reason: 'bank said no' }).expect(409);
    expect(refused.body).toMatchObject({ code: 'invalid_state_transition' });
    expect(refused.body.message).toMatch(/allowed from: pending, in_transit/);
    expect(await tenantRowsOf('payouts', t.tenant.tenantId)).toEqual(before);
    expect(await eventTypesFor(t.tenant.tenantId, payoutId)).toEqual(['payout.created', 'payout.in_transit', 'payout.paid']);
  });

  test('failed needs a reason (400 naming it) and returns its money to the next payout', async () => {
    await paidDebt(t.api, t.parties, [2000]);
    const [second] = await runNow(t.ops, t.parties.organisationId);
    const missing = await t.ops.post(`/operator/payouts/${second}/status`, { status: 'failed' }).expect(400);
    expect(missing.body.param).toBe('reason');
    const failed = await t.ops.post(`/operator/payouts/${second}/status`, { status: 'failed', reason: 'account closed' }).expect(200);
    expect(failed.body.status).toMatchObject({ value: 'failed', reason: 'account closed' });
    const [third] = await runNow(t.ops, t.parties.organisationId);
    const next = (await t.api.get(`/payouts/${third}`).expect(200)).body;
    expect(next).toMatchObject({ gross: 0, fees: 0, adjustments: failed.body.amount, amount: failed.body.amount, item_count: 1 });
    const items = (await t.api.get(`/payouts/${third}/items`).expect(200)).body.data;
    expect(items).toEqual([expect.objectContaining({ type: 'adjustment', amount: failed.body.amount, payment: null })]);
  });
});

describe('late refunds', () => {
  test('a refund after its payment was paid out is a negative item of the next payout; below zero carries forward', async () => {
    const o = await payoutTenant({ fee_basis_points: 0, fee_minimum: 0 });
    const {
      debtId: debt,
      payments: [big, small],
    } = await paidDebt(o.api, o.parties, [5000, 1000]);
    const [first] = await runNow(o.ops, o.parties.organisationId);
    expect((await o.api.get(`/payouts/${first}`).expect(200)).body.amount).toBe(6000);
    await o.api.post(`/debts/${debt}/payments/${big}/refund`, { amount: 4000 }).expect(200);
    await paidDebt(o.api, o.parties, [1500]);
    const [second] = await runNow(o.ops, o.parties.organisationId);
    // 1500 - 4000 = -2500: paid 0, 2500 carried forward.
    expect((await o.api.get(`/payouts/${second}`).expect(200)).body).toMatchObject({ gross: 1500, refunds: 4000, adjustments: 2500, amount: 0, item_count: 3 });
    await o.api.post(`/debts/${debt}/payments/${small}/refund`, {}).expect(200);
    await paidDebt(o.api, o.parties, [10000]);
    const [third] = await runNow(o.ops, o.parties.organisationId);
    expect((await o.api.get(`/payouts/${third}`).expect(200)).body).toMatchObject({ gross: 10000, refunds: 1000, adjustments: -2500, amount: 6500 });
    const refunds = (await o.api.get(`/payouts/${second}/items`).expect(200)).body.data.filter((i: { type: string }) => i.type === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ payment: big, amount: -4000, fee: 0, net: -4000 })]);
  });
});

describe('who may do what, and bad input', () => {
  test('a tenant reads payouts but cannot run or move them (403), and has no write route', async () => {
    await t.api.post('/operator/payouts/run', {}).expect(403);
    await t.api.post(`/operator/payouts/${payoutId}/status`, { status: 'paid' }).expect(403);
    // No write route: the path exists for GET only (405 with `Allow`, docs/api.md section 11).
    expect((await t.api.post('/payouts', {}).expect(405)).headers.allow).toBe('GET, HEAD, OPTIONS');
    const reader = await signedInTenant('debts:read');
    await reader.api.get('/payouts').expect(403);
  });

  test("another tenant's payout, its items and its items.csv are 404", async () => {
    const other = await signedInTenant();
    for (const path of [`/payouts/${payoutId}`, `/payouts/${payoutId}/items`, `/payouts/${payoutId}/items.csv`]) {
      const res = await other.api.get(path).expect(404);
      expect(res.body.code).toBe('resource_missing');
    }
  });

  test('an unknown schedule or a negative fee is 400 naming the field, nothing changed', async () => {
    const org = `/organisations/${t.parties.organisationId}`;
    const before = (await t.api.get(org).expect(200)).body;
    const schedule = await t.api.patch(org, { configurations: { payouts: { schedule: 'hourly' } } }).expect(400);
    expect(schedule.body.param).toBe('configurations.payouts.schedule');
    const fee = await t.api.patch(org, { configurations: { payouts: { fee_minimum: -1 } } }).expect(400);
    expect(fee.body.param).toBe('configurations.payouts.fee_minimum');
    const bps = await t.api.patch(org, { configurations: { payouts: { fee_basis_points: -5 } } }).expect(400);
    expect(bps.body.param).toBe('configurations.payouts.fee_basis_points');
    expect((await t.api.get(org).expect(200)).body).toEqual(before);
  });

  test('running an unknown organisation is 404 naming organisation_id', async () => {
    const res = await t.ops.post('/operator/payouts/run', { organisation_id: 'org_000000000000000000000000' }).expect(404);
    expect(res.body.param).toBe('organisation_id');
  });
});
