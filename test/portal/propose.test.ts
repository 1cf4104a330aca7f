/**
 * Proposing a plan from the portal (docs/api.md section 18 "Proposals"), over HTTP against the
 * real application and PostgreSQL with a cookie jar: terms within the policy go to the offers;
 * outside it, without a statement, to the statement journey (`?return=propose`); with one, check
 * your answers, then the proposal is recorded (`proposal.created`, the debt `assessing`) and the
 * sent page says the creditor decides. Bad answers are 400 naming each field with nothing stored;
 * another customer's debt is 404. The statement is made through the tenant API here.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { csrfOf, signedIn, startPortal, type Agent } from './steps-support.js';
import { statementBody } from '../circumstances/support.js';

let portal: Awaited<ReturnType<typeof startPortal>>;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };
let otherDebtId: string;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  const policy = { payment_plans_permitted: true, min_instalment_amount: 1_000, max_instalments: 6 };
  await me.api.patch(`/organisations/${parties.organisationId}`, { payment_options_configuration: policy }).expect(200);
  const other = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = await readyDebt(other.body.id as string);
  portal = await startPortal();
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

/** A prepared debt of 100.00 GBP of `customerId`. */
async function readyDebt(customerId = parties.customerId): Promise<string> {
  const debt = await createDebt(me.api, { ...parties, customerId });
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
}

function signIn(): Promise<Agent> {
  return signedIn(portal.base, me.tenant.tenantId, parties.customerId, '1980-03-27');
}

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
/** Posts `answers` on the propose page, expecting `status`. */
const propose = async (agent: Agent, debtId: string, answers: Record<string, string>, status: number) =>
  agent
    .post(`/debts/${debtId}/propose`)
    .type('form')
    .send({ _csrf: await csrfOf(agent, `/debts/${debtId}/propose`), ...answers })
    .expect(status);

describe('proposing a plan', () => {
  test('within the policy goes to the offers; outside it, to the statement journey, then check answers and sent', async () => {
    const agent = await signIn();
    const debtId = await readyDebt();
    const within = await propose(agent, debtId, { amount: '20.00', frequency: 'monthly', start_on: inDays(5) }, 303);
    expect(within.headers.location).toBe(`/debts/${debtId}/offers`);

    const outside = await propose(agent, debtId, { amount: '7.00', frequency: 'weekly', start_on: inDays(5) }, 303);
    expect(outside.headers.location).toBe(`/debts/${debtId}/statement?return=propose`);
    await agent.get(`/debts/${debtId}/propose/check`).expect(303).expect('Location', `/debts/${debtId}/statement?return=propose`);

    const iae = (await me.api.post(`/debts/${debtId}/income_and_expenditures`, statementBody()).expect(201)).body.id;
    const check = await agent.get(`/debts/${debtId}/propose/check`).expect(200);
    expect(check.text).toContain('Check your proposal');
    expect(check.text).toContain('£7.00');
    expect(check.text).toContain('Every week');
    const sent = await agent
      .post(`/debts/${debtId}/propose/check`)
      .type('form')
      .send({ _csrf: await csrfOf(agent, `/debts/${debtId}/propose/check`) })
      .expect(303);
    expect(sent.headers.location).toBe(`/debts/${debtId}/propose/sent`);
    expect((await agent.get(sent.headers.location!).expect(200)).text).toContain('Your creditor will decide');

    const [row] = await testDb()('proposals').where({ debt_id: debtId });
    expect(row).toMatchObject({ instalment_amount: 700, frequency: 'weekly', instalment_count: 15, income_and_expenditure_id: iae, status: 'pending' });
    expect(row.whodunnit).toBe(`customer:${parties.customerId}`);
    expect(await eventTypesFor(me.tenant.tenantId, row.id)).toEqual(['proposal.created']);
    expect((await me.api.get(`/debts/${debtId}`).expect(200)).body.status.value).toBe('assessing');
  });

  test('bad answers are 400 naming each field, in French too, and nothing is stored', async () => {
    const agent = await signIn();
    const debtId = await readyDebt();
    const bad = await propose(agent, debtId, { amount: 'lots', frequency: 'daily', start_on: '2026-02-30' }, 400);
    for (const field of ['amount', 'frequency', 'start_on']) expect(bad.text).toContain(`href="#${field}"`);
    const past = await propose(agent, debtId, { amount: '7.00', frequency: 'weekly', start_on: inDays(-2) }, 400);
    expect(past.text).toContain('must be today or later');
    await agent.get(`/debts/${debtId}/propose?lang=fr-FR`).expect(200);
    const french = await propose(agent, debtId, { amount: '', frequency: 'weekly', start_on: inDays(3) }, 400);
    expect(french.text).toContain('Saisissez le montant que vous pouvez payer');
    expect(await testDb()('proposals').where({ debt_id: debtId })).toEqual([]);
  });

  test("another customer's debt is 404", async () => {
    const agent = await signIn();
    await agent.get(`/debts/${otherDebtId}/propose`).expect(404);
    await agent.get(`/debts/${otherDebtId}/propose/check`).expect(404);
  });
});
