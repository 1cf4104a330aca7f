/**
 * Proposals over HTTP (docs/api.md section 18): a plan the customer proposed outside the policy is
 * recorded with its income and expenditure statement and the debt goes to `assessing`
 * (`proposal.created`); the tenant lists and reads proposals, accepts one (the plan is made as the
 * API makes plans, the debt `paying`, `proposal.accepted`) or declines it with a reason (the debt
 * `resumed`, `proposal.declined`); operators do the same at `/operator/proposals`. Deciding twice
 * is 409, a decline without a reason is 400 naming `reason`, both with nothing changed; another
 * tenant's proposal is 404.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { createProposal, withinPolicy } from '@dms/domain/proposals';
import { closeHarness, newOperator, operatorAs, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { createDebt, eventTypesFor, type Parties } from '../support/debts.js';
import { statementBody, monthly } from '../circumstances/support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;

let acme: Tenant;
let globex: Tenant;
let parties: Parties;
let operatorToken: string;

beforeAll(async () => {
  [acme, globex] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(acme.api);
  operatorToken = await tokenFor(await newOperator());
});

afterAll(closeHarness);

/** A date `days` after today (UTC), `YYYY-MM-DD`. */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** A prepared debt of 100.00 with a statement; returns their ids. */
async function debtWithStatement(): Promise<{ debtId: string; statementId: string }> {
  const debt = await createDebt(acme.api, parties);
  await acme.api.post(`/debts/${debt.id}/ready`).expect(200);
  const statement = statementBody({ income: { earnings: monthly(120_000) }, fixed_costs: { housing: monthly(110_000) } });
  const made = (await acme.api.post(`/debts/${debt.id}/income_and_expenditures`, statement).expect(201)).body;
  return { debtId: debt.id, statementId: made.id };
}

/** A customer's proposal of 7.00 a month (15 instalments: outside the default policy of 12) for a new debt. */
async function proposed() {
  const { debtId, statementId } = await debtWithStatement();
  const proposal = await createProposal(
    testDb(),
    acme.tenant.tenantId,
    debtId,
    { instalment_amount: 700, frequency: 'monthly', start_on: inDays(7), income_and_expenditure: statementId },
    `customer:${parties.customerId}`,
  );
  return { debtId, statementId, proposal };
}

const debtStatus = async (id: string) => (await acme.api.get(`/debts/${id}`).expect(200)).body.status.value as string;
const ops = () => operatorAs(operatorToken, acme.tenant.tenantId);

describe('a proposal made in the portal', () => {
  test('is recorded with its statement and moves the debt to assessing, with its events', async () => {
    const { debtId, statementId, proposal } = await proposed();
    expect(withinPolicy(10_000, 700, { payment_plans_permitted: true })).toBe(false);
    expect(proposal).toMatchObject({
      object: 'proposal',
      debt: debtId,
      customer: parties.customerId,
      income_and_expenditure: statementId,
      instalment_amount: 700,
      frequency: 'monthly',
      instalment_count: 15,
      status: 'pending',
      decided_at: null,
      decline_reason: null,
      payment_plan: null,
    });
    expect(proposal.id).toMatch(/^prp_[A-Za-z0-9]{24}$/);
    expect(await debtStatus(debtId)).toBe('assessing');
    expect(await eventTypesFor(acme.tenant.tenantId, proposal.id)).toEqual(['proposal.created']);
    expect(await eventTypesFor(acme.tenant.tenantId, debtId)).toContain('debt.assessing');
  });

  test('bad input names the field and changes nothing', async () => {
    const { debtId, statementId } = await debtWithStatement();
    const good = { instalment_amount: 700, frequency: 'monthly', start_on: inDays(7), income_and_expenditure: statementId };
    const attempt = (patch: Record<string, unknown>) =>
      createProposal(testDb(), acme.tenant.tenantId, debtId, { ...good, ...patch } as never, 'customer:x').then(
        () => undefined,
        (err: ApiError) => [err.code, err.param],
      );
    expect(await attempt({ instalment_amount: 0 })).toEqual(['validation_failed', 'instalment_amount']);
    expect(await attempt({ instalment_amount: 7.5 })).toEqual(['validation_failed', 'instalment_amount']);
    expect(await attempt({ frequency: 'daily' })).toEqual(['validation_failed', 'frequency']);
    expect(await attempt({ start_on: '2026-02-30' })).toEqual(['validation_failed', 'start_on']);
    expect(await attempt({ start_on: inDays(-3) })).toEqual(['business_rule_violation', 'start_on']);
    expect(await attempt({ income_and_expenditure: undefined })).toEqual(['validation_failed', 'income_and_expenditure']);
    const other = await debtWithStatement();
    expect(await attempt({ income_and_expenditure: other.statementId })).toEqual(['resource_missing', 'income_and_expenditure']);
    expect(await attempt({ instalment_amount: 1 })).toEqual(['business_rule_violation', 'instalment_amount']);
    expect(await testDb()('proposals').where({ debt_id: debtId })).toEqual([]);
    expect(await debtStatus(debtId)).toBe('prepared');
  });
});

describe('the tenant', () => {
  test('lists and reads its proposals; another tenant sees none of them', async () => {
    const { proposal } = await proposed();
    const list = await acme.api.get('/proposals?limit=100').expect(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(proposal.id);
    expect(Number(list.headers['x-total-count'])).toBeGreaterThanOrEqual(1);
    const first = await acme.api.get('/proposals?limit=1').expect(200);
    expect(first.body.data).toHaveLength(1);
    expect((await acme.api.get(`/proposals/${proposal.id}`).expect(200)).body).toEqual({ ...proposal, livemode: true });
    await globex.api.get(`/proposals/${proposal.id}`).expect(404);
    await globex.api.post(`/proposals/${proposal.id}/accept`).expect(404);
    expect((await globex.api.get('/proposals').expect(200)).body.data).toEqual([]);
  });

  test('accepts one: the plan is made from its terms, the debt pays; accepting or declining again is 409', async () => {
    const { debtId, proposal } = await proposed();
    const accepted = (await acme.api.post(`/proposals/${proposal.id}/accept`).expect(200)).body;
    expect(accepted).toMatchObject({ id: proposal.id, status: 'accepted', decline_reason: null });
    expect(accepted.decided_at).toEqual(expect.any(String));
    const plan = (await acme.api.get(`/payment_plans/${accepted.payment_plan}`).expect(200)).body;
    expect(plan).toMatchObject({ debt: debtId, frequency: 'monthly', start_on: proposal.start_on, status: 'active' });
    expect(plan.schedule).toHaveLength(15);
    expect(plan.schedule[0].amount).toBe(700);
    expect(await debtStatus(debtId)).toBe('paying');
    expect(await eventTypesFor(acme.tenant.tenantId, proposal.id)).toEqual(['proposal.created', 'proposal.accepted']);
    expect(await eventTypesFor(acme.tenant.tenantId, accepted.payment_plan)).toEqual(['payment_plan.created']);

    const again = await acme.api.post(`/proposals/${proposal.id}/accept`).expect(409);
    expect(again.body.code).toBe('invalid_state_transition');
    await acme.api.post(`/proposals/${proposal.id}/decline`, { reason: 'late' }).expect(409);
    expect((await acme.api.get(`/proposals/${proposal.id}`).expect(200)).body.status).toBe('accepted');
    expect(await debtStatus(debtId)).toBe('paying');
  });

  test('declines one with a reason: the debt is worked again; without a reason 400, nothing changed', async () => {
    const { debtId, proposal } = await proposed();
    const bad = await acme.api.post(`/proposals/${proposal.id}/decline`, {}).expect(400);
    expect(bad.body.param).toBe('reason');
    expect(await debtStatus(debtId)).toBe('assessing');
    expect((await acme.api.get(`/proposals/${proposal.id}`).expect(200)).body.status).toBe('pending');

    const declined = (await acme.api.post(`/proposals/${proposal.id}/decline`, { reason: 'Too long for this balance' }).expect(200)).body;
    expect(declined).toMatchObject({ status: 'declined', decline_reason: 'Too long for this balance', payment_plan: null });
    expect(await debtStatus(debtId)).toBe('resumed');
    expect(await eventTypesFor(acme.tenant.tenantId, proposal.id)).toEqual(['proposal.created', 'proposal.declined']);
    await acme.api.post(`/proposals/${proposal.id}/decline`, { reason: 'again' }).expect(409);
    await acme.api.post(`/proposals/${proposal.id}/accept`).expect(409);
    expect(await debtStatus(debtId)).toBe('resumed');
  });
});

describe('operators', () => {
  test('accept and decline with Tenant-Id, recorded as theirs; a tenant token on their route is 403', async () => {
    const a = await proposed();
    await acme.api.post(`/operator/proposals/${a.proposal.id}/accept`).expect(403);
    expect((await ops().post(`/operator/proposals/${a.proposal.id}/accept`).expect(200)).body.status).toBe('accepted');
    expect(await debtStatus(a.debtId)).toBe('paying');
    await ops().post(`/operator/proposals/${a.proposal.id}/accept`).expect(409);

    const d = await proposed();
    await ops().post(`/operator/proposals/${d.proposal.id}/decline`, { reason: '' }).expect(400);
    expect((await ops().post(`/operator/proposals/${d.proposal.id}/decline`, { reason: 'Not affordable' }).expect(200)).body.status).toBe('declined');
    const row = await testDb()('proposals').where({ id: d.proposal.id }).first();
    expect(row.decided_by).toMatch(/^operator:/);
    expect(await debtStatus(d.debtId)).toBe('resumed');
    await operatorAs(operatorToken, globex.tenant.tenantId).post(`/operator/proposals/${a.proposal.id}/decline`, { reason: 'x' }).expect(404);
  });
});
