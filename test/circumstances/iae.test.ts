/**
 * Income and expenditure statements over HTTP (docs/api.md section 19): a tenant records a
 * statement taken by phone (`POST /debts/{id}/income_and_expenditures`), each entry stored with its
 * monthly figure and the disposable income computed; the debt's statements are listed newest first
 * with keyset pages and `X-Total-Count`, and embedded with `expand[]=income_and_expenditures`;
 * `income_and_expenditure.created` is recorded and delivered to a subscribed endpoint. Every bad
 * input is a 400 naming the field with nothing stored; another tenant's debt is 404. The latest
 * statement of a debt caps its plan offers at the organisation's share of its disposable income.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { createIncomeAndExpenditure, debtAffordability } from '@dms/domain/income-and-expenditure';
import { offers, type Offer } from '@dms/domain/payment-plans';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { monthly, statementBody } from './support.js';

type Json = Record<string, any>;
type Tenant = Awaited<ReturnType<typeof signedInTenant>>;

/** Earnings 500.00 a week, rent 600.00 a month, food 80.00 a fortnight: 2166.67 - 600.00 - 173.33 = 1393.34 a month. */
const PHONE_STATEMENT = statementBody({
  income: { earnings: { amount: 50_000, frequency: 'weekly' } },
  fixed_costs: { housing: monthly(60_000) },
  flexible_costs: { food_and_housekeeping: { amount: 8_000, frequency: 'fortnightly' } },
});

let t: Tenant;
let parties: Parties;
let receiver: Receiver;
const processes: RunningService[] = [];

beforeAll(async () => {
  t = await signedInTenant();
  parties = await seedParties(t.api);
  receiver = await startReceiver();
  receiver.onHook((r) => (r.verified ? 204 : 401));
  const endpoint = (await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['income_and_expenditure.created'] }).expect(201)).body;
  receiver.setSigningSecret(endpoint.signing_secret);
  processes.push(await startDispatcher([t.tenant.tenantId]));
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await receiver?.close();
  await closeHarness();
});

const storedFor = async (debtId: string) => testDb()('income_and_expenditures').where({ debt_id: debtId }).select('id');

describe('a statement taken by phone', () => {
  test('is stored with monthly figures and the disposable income, recorded as an event and delivered', async () => {
    const debt = await createDebt(t.api, parties);
    const made = (await t.api.post(`/debts/${debt.id}/income_and_expenditures`, PHONE_STATEMENT).expect(201)).body;
    expect(made).toMatchObject({
      object: 'income_and_expenditure',
      debt: debt.id,
      customer: parties.customerId,
      currency: 'GBP',
      livemode: true,
      household: { adults: 2, children: 1, vehicles: 1 },
      disposable_income: 139_334,
      created_by: t.tenant.clientId,
    });
    expect(made.id).toMatch(/^iae_[A-Za-z0-9]{24}$/);
    expect(made.income.earnings).toEqual({ amount: 50_000, frequency: 'weekly', monthly: 216_667 });
    expect(made.flexible_costs.food_and_housekeeping).toEqual({ amount: 8_000, frequency: 'fortnightly', monthly: 17_333 });
    expect(made.totals).toEqual({ income: 216_667, fixed_costs: 60_000, flexible_costs: 17_333, priority_debts: 0, other_debts: 0 });

    expect(await eventTypesFor(t.tenant.tenantId, made.id)).toEqual(['income_and_expenditure.created']);
    const delivered = await eventually(
      () => receiver.received.find((r) => r.event.type === 'income_and_expenditure.created' && r.event.data.object.id === made.id),
      'the event delivered to the endpoint',
    );
    expect(delivered.verified).toBe(true);
    expect(delivered.event.data.object).toEqual(made);
  });

  test('a debt lists its statements newest first in keyset pages, and expands them', async () => {
    const debt = await createDebt(t.api, parties);
    const other = await createDebt(t.api, parties);
    const ids: string[] = [];
    for (const earnings of [100_000, 200_000, 300_000])
      ids.push((await t.api.post(`/debts/${debt.id}/income_and_expenditures`, statementBody({ income: { earnings: monthly(earnings) } })).expect(201)).body.id);
    await t.api.post(`/debts/${other.id}/income_and_expenditures`, PHONE_STATEMENT).expect(201);

    const first = await t.api.get(`/debts/${debt.id}/income_and_expenditures?limit=2`).expect(200);
    expect(first.headers['x-total-count']).toBe('3');
    expect(first.body.object).toBe('list');
    expect(first.body.data.map((s: Json) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.data[0].disposable_income).toBe(300_000);
    const second = await t.api.get(`/debts/${debt.id}/income_and_expenditures?limit=2&after=${ids[1]}`).expect(200);
    expect(second.body.data.map((s: Json) => s.id)).toEqual([ids[0]]);
    expect((await t.api.get(`/debts/${other.id}/income_and_expenditures`).expect(200)).body.data).toHaveLength(1);

    const expanded = (await t.api.get(`/debts/${debt.id}?expand[]=income_and_expenditures`).expect(200)).body;
    expect(expanded.income_and_expenditures.map((s: Json) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(expanded.income_and_expenditures[0]).toEqual(first.body.data[0]);
    expect((await t.api.get(`/debts/${debt.id}`).expect(200)).body).not.toHaveProperty('income_and_expenditures');
    const listed = (await t.api.get(`/debts?expand[]=income_and_expenditures&limit=100`).expect(200)).body.data as Json[];
    expect(listed.find((d) => d.id === other.id)!.income_and_expenditures).toHaveLength(1);
    const none = await createDebt(t.api, parties);
    expect((await t.api.get(`/debts/${none.id}?expand[]=income_and_expenditures`).expect(200)).body.income_and_expenditures).toEqual([]);
  });
});

test("the latest statement caps the debt's plan offers at the share of its disposable income", async () => {
  const debt = await createDebt(t.api, parties, { breakdown: { principal: 100_000 } });
  expect(await debtAffordability(testDb(), t.tenant.tenantId, debt.id, 50)).toBeUndefined();
  await t.api.post(`/debts/${debt.id}/income_and_expenditures`, statementBody({ income: { earnings: monthly(10_000) } })).expect(201);
  await t.api.post(`/debts/${debt.id}/income_and_expenditures`, statementBody({ income: { earnings: monthly(40_001) } })).expect(201);
  const affordability = await debtAffordability(testDb(), t.tenant.tenantId, debt.id, 50);
  expect(affordability).toEqual({ cap: 20_000 }); // 50% of 400.01, rounded down
  expect(await debtAffordability(testDb(), (await signedInTenant()).tenant.tenantId, debt.id, 50)).toBeUndefined();
  const plans = offers(100_000, { payment_plans_permitted: true, max_instalments: 6 }, '2026-11-28', affordability).filter(
    (o): o is Extract<Offer, { type: 'plan' }> => o.type === 'plan',
  );
  expect(plans.map((p) => [p.instalment_count, p.frequency, p.amounts[0]])).toEqual([
    [5, 'monthly', 20_000],
    [6, 'monthly', 16_667],
  ]);
});

describe('bad input is a 400 naming the field, with nothing stored', () => {
  const { household: _household, ...withoutHousehold } = PHONE_STATEMENT;
  const { other_debts: _other, ...withoutOtherDebts } = PHONE_STATEMENT;
  const { leisure: _leisure, ...flexibleWithoutLeisure } = PHONE_STATEMENT.flexible_costs;
  test.each<[string, Json, string]>([
    ['a negative amount', statementBody({ fixed_costs: { housing: monthly(-1) } }), 'fixed_costs.housing.amount'],
    ['an absurd amount', statementBody({ income: { earnings: monthly(1_000_000_001) } }), 'income.earnings.amount'],
    ['a fractional amount', statementBody({ income: { benefits: monthly(10.5) } }), 'income.benefits.amount'],
    ['an unknown frequency', statementBody({ income: { pensions: { amount: 100, frequency: 'daily' } } }), 'income.pensions.frequency'],
    ['a missing group', withoutOtherDebts, 'other_debts'],
    ['a missing household', withoutHousehold, 'household'],
    ['a missing entry', { ...PHONE_STATEMENT, flexible_costs: flexibleWithoutLeisure }, 'flexible_costs.leisure'],
    ['no adult', { ...PHONE_STATEMENT, household: { adults: 0, children: 0, vehicles: 0 } }, 'household.adults'],
    ['too many children', { ...PHONE_STATEMENT, household: { adults: 1, children: 31, vehicles: 0 } }, 'household.children'],
    ['an unknown entry', statementBody({ income: { lottery: monthly(5) } }), 'income.lottery'],
    ['an unknown group', { ...PHONE_STATEMENT, savings: {} }, 'savings'],
  ])('%s', async (_what, body, param) => {
    const debt = await createDebt(t.api, parties);
    const res = await t.api.post(`/debts/${debt.id}/income_and_expenditures`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(res.body.message).toContain(param);
    expect(await storedFor(debt.id)).toEqual([]);
    expect(await eventTypesFor(t.tenant.tenantId, debt.id)).toEqual(['debt.created']);
  });
});

test("the portal's path, the domain function: the customer as actor, and each bad field named with nothing stored", async () => {
  const debt = await createDebt(t.api, parties);
  const actor = `customer:${parties.customerId}`;
  const bad = statementBody({ fixed_costs: { housing: monthly(-5) }, income: { earnings: monthly(2_000_000_000) } });
  const refused = await createIncomeAndExpenditure(testDb(), t.tenant.tenantId, debt.id, bad, actor).catch((e: unknown) => e);
  expect(refused).toMatchObject({ code: 'validation_failed', param: 'income.earnings.amount' });
  expect((refused as { errors: Json[] }).errors.map((e) => e.param)).toEqual(['income.earnings.amount', 'fixed_costs.housing.amount']);
  expect(await storedFor(debt.id)).toEqual([]);
  const made = await createIncomeAndExpenditure(testDb(), t.tenant.tenantId, debt.id, PHONE_STATEMENT, actor);
  expect(made).toMatchObject({ created_by: actor, disposable_income: 139_334 });
  const listed = (await t.api.get(`/debts/${debt.id}/income_and_expenditures`).expect(200)).body.data;
  expect(listed).toEqual([{ ...made, livemode: true }]);
});

describe("another tenant's debt", () => {
  test('is 404 to list, record and expand, and nothing is stored', async () => {
    const theirs = await createDebt(t.api, parties);
    await t.api.post(`/debts/${theirs.id}/income_and_expenditures`, PHONE_STATEMENT).expect(201);
    const me = await signedInTenant();
    const post = await me.api.post(`/debts/${theirs.id}/income_and_expenditures`, PHONE_STATEMENT).expect(404);
    expect(post.body.code).toBe('resource_missing');
    expect((await me.api.get(`/debts/${theirs.id}/income_and_expenditures`).expect(404)).body.code).toBe('resource_missing');
    await me.api.get(`/debts/${theirs.id}?expand[]=income_and_expenditures`).expect(404);
    expect(await storedFor(theirs.id)).toHaveLength(1);
    expect(await testDb()('income_and_expenditures').where({ tenant_id: me.tenant.tenantId })).toEqual([]);
  });
});
