/**
 * Offers, plans with a saved card, pay later and cancelling the card authority on the portal
 * (docs/api.md section 18), over HTTP against the real application and PostgreSQL through the
 * `local` provider: the offers of the options in force (the debt's over the organisation's); a
 * plan chosen, dated, checked and its card saved with 4242 → the plan made by the API's own
 * function with the saved method (`payment_plan.created`, whodunnit `customer:<id>`); a declined
 * card → nothing made; pay later → a promise (`payment.promised`); a choice not permitted is
 * refused; another customer's debt is 404; a form without its CSRF token is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { localCallbackSecret, localProvider } from '@dms/payments';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { csrfOf, signedIn, startPortal, type Agent, type RunningPortal } from './steps-support.js';

const provider = localProvider(localCallbackSecret('test-secrets-key'));
let portal: RunningPortal;
let base: string;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };
let otherDebtId: string;
let today: string;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  const options = { payment_plans_permitted: true, pay_later_permitted: true, max_instalments: 4, min_instalment_amount: 1000 };
  await me.api.patch(`/organisations/${parties.organisationId}`, { payment_options_configuration: options }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = await readyDebt(second.body.id as string);
  today = (await testDb().raw(`SELECT (tenant_now(?) AT TIME ZONE 'UTC')::date::text AS d`, [me.tenant.tenantId])).rows[0].d as string;
  portal = await startPortal({ payments: provider });
  base = portal.base;
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

/** A ready debt of 100.00 GBP (with `body`'s fields, e.g. its own payment options). */
async function readyDebt(customerId = parties.customerId, body: Record<string, unknown> = {}): Promise<string> {
  const debt = await createDebt(me.api, { ...parties, customerId }, body);
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id as string;
}

const signIn = () => signedIn(base, me.tenant.tenantId, parties.customerId, '1980-03-27');

/** Chooses `choice` and `date`, checks the answers; returns the checkout's path. */
async function arrange(agent: Agent, debtId: string, choice: string, date: string): Promise<string> {
  const csrf = await csrfOf(agent, `/debts/${debtId}/offers`);
  const chosen = await agent.post(`/debts/${debtId}/offers`).type('form').send({ _csrf: csrf, choice }).expect(303);
  expect(chosen.headers.location).toBe(`/debts/${debtId}/offers/date`);
  await agent.get(`/debts/${debtId}/offers/date`).expect(200);
  const dated = await agent.post(`/debts/${debtId}/offers/date`).type('form').send({ _csrf: csrf, date }).expect(303);
  expect(dated.headers.location).toBe(`/debts/${debtId}/offers/check`);
  expect((await agent.get(`/debts/${debtId}/offers/check`).expect(200)).text).toContain('Check your answers');
  const sent = await agent.post(`/debts/${debtId}/offers/check`).type('form').send({ _csrf: csrf }).expect(303);
  expect(sent.headers.location).toMatch(/^\/checkout\/local\/lcs_/);
  return sent.headers.location as string;
}

async function saveCard(agent: Agent, path: string, card: string) {
  const csrf = await csrfOf(agent, path);
  await agent.post(path).type('form').send({ _csrf: csrf, card_number: card }).expect(303);
  return (await agent.get(path).expect(200)).text;
}

const plansOf = (debtId: string) => testDb()('payment_plans').where({ debt_id: debtId });
const promisesOf = (debtId: string) => testDb()('payment_promises').where({ debt_id: debtId });
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('offers', () => {
  test('the offers the options allow: in full, pay later, plans shortest first; nothing charged on the page', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    expect((await agent.get(`/debts/${debtId}`).expect(200)).text).toContain(`/debts/${debtId}/offers`);
    const page = (await agent.get(`/debts/${debtId}/offers`).expect(200)).text;
    expect(page).toContain('value="pay_later"');
    const ids = [...page.matchAll(/name="choice" value="([a-z]+-\d+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(['weekly-2', 'fortnightly-2', 'monthly-2', 'weekly-3', 'fortnightly-3', 'monthly-3', 'weekly-4', 'fortnightly-4', 'monthly-4']);
    expect(page).toContain('3 monthly payments of £33.33 (the last one £33.34)');
    // None fits: the customer may propose their own plan (routes/propose.ts).
    expect(page).toContain(`href="/debts/${debtId}/propose"`);
  });

  test('a plan with 4242: saved card, the plan made by createPlan with the method, whodunnit customer', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const start = addDays(today, 7);
    const path = await arrange(agent, debtId, 'monthly-3', start);
    expect(await plansOf(debtId)).toEqual([]);
    const setup = await testDb()('payment_setups')
      .where({ checkout_reference: path.split('/').pop() })
      .first();
    expect(setup).toMatchObject({
      kind: 'plan',
      status: 'open',
      amount: 3333,
      terms: { kind: 'plan', frequency: 'monthly', instalment_count: 3, start_on: start },
    });
    expect(await saveCard(agent, path, '4242 4242 4242 4242')).toContain('Your plan is set up');
    const [plan] = await plansOf(debtId);
    expect(plan).toMatchObject({ status: 'active', frequency: 'monthly', payment_method_provider: 'local', payment_method_label: 'card ending 4242' });
    expect(plan.payment_method_reference).toMatch(/^lpm_s4242_/);
    expect(plan.schedule.map((i: { amount: number }) => i.amount)).toEqual([3333, 3333, 3334]);
    expect(plan.metadata).toEqual({ source: 'portal' });
    expect(await eventTypesFor(me.tenant.tenantId, plan.id)).toEqual(['payment_plan.created']);
    expect((await testDb()('debts').where({ id: debtId }).first()).status_whodunnit).toBe(`customer:${parties.customerId}`);
    // Nothing was charged at checkout; the tenant's API shows the method, never a card number.
    expect(await testDb()('payments').where({ debt_id: debtId })).toEqual([]);
    const api = await me.api.get(`/payment_plans/${plan.id}`).expect(200);
    expect(api.body.payment_method).toEqual({ provider: 'local', label: 'card ending 4242', authority_canceled_at: null });
    expect(JSON.stringify(api.body)).not.toContain('4242424242424242');
    // The same outcome again changes nothing; the result page stays.
    expect((await agent.get(path).expect(200)).text).toContain('Your plan is set up');
  });

  test('a declined card (0002): nothing made, the setup failed', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const path = await arrange(agent, debtId, 'weekly-2', today);
    expect(await saveCard(agent, path, '4000 0000 0000 0002')).toContain('Your plan was not set up');
    expect(await plansOf(debtId)).toEqual([]);
    expect(
      (
        await testDb()('payment_setups')
          .where({ checkout_reference: path.split('/').pop() })
          .first()
      ).status,
    ).toBe('failed');
  });

  test('pay later: a promise with the saved card and payment.promised', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const on = addDays(today, 30);
    const path = await arrange(agent, debtId, 'pay_later', on);
    expect(await saveCard(agent, path, '4242424242424242')).toContain('Your payment is arranged');
    const [promise] = await promisesOf(debtId);
    expect(promise).toMatchObject({ status: 'active', amount: 10000, payment_method_label: 'card ending 4242', customer_id: parties.customerId });
    expect(await eventTypesFor(me.tenant.tenantId, promise.id)).toEqual(['payment.promised']);
    expect(await plansOf(debtId)).toEqual([]);
  });

  test('bad answers: no choice, a date past 30 days or in the past, each a 400 naming the field; nothing stored', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    const csrf = await csrfOf(agent, `/debts/${debtId}/offers`);
    const none = await agent.post(`/debts/${debtId}/offers`).type('form').send({ _csrf: csrf }).expect(400);
    expect(none.text).toContain('href="#choice"');
    await agent.post(`/debts/${debtId}/offers`).type('form').send({ _csrf: csrf, choice: 'monthly-2' }).expect(303);
    for (const date of [addDays(today, 31), addDays(today, -1), 'tomorrow']) {
      const bad = await agent.post(`/debts/${debtId}/offers/date`).type('form').send({ _csrf: csrf, date }).expect(400);
      expect(bad.text).toContain('href="#date"');
    }
    // Check answers without a date goes back to the offers.
    expect((await agent.get(`/debts/${debtId}/offers/check`).expect(303)).headers.location).toBe(`/debts/${debtId}/offers`);
    expect(await testDb()('payment_setups').where({ debt_id: debtId })).toEqual([]);
  });

  test('not permitted by the debt’s own options: no plan or pay later offered, a forced choice refused (403)', async () => {
    const debtId = await readyDebt(parties.customerId, { configurations: { payment_options: { payment_plans_permitted: false, pay_later_permitted: false } } });
    const agent = await signIn();
    const page = (await agent.get(`/debts/${debtId}/offers`).expect(200)).text;
    expect(page).not.toContain('name="choice"');
    const csrf = await csrfOf(agent, `/debts/${debtId}/offers`);
    for (const choice of ['pay_later', 'monthly-2', 'monthly-99']) {
      const refused = await agent.post(`/debts/${debtId}/offers`).type('form').send({ _csrf: csrf, choice }).expect(403);
      expect(refused.text).toContain('This way to pay is not available');
    }
    expect(await testDb()('payment_setups').where({ debt_id: debtId })).toEqual([]);
  });

  test('another customer’s debt is 404; a form without its CSRF token is refused', async () => {
    const agent = await signIn();
    await agent.get(`/debts/${otherDebtId}/offers`).expect(404);
    const csrf = await csrfOf(agent, '/debts');
    await agent.post(`/debts/${otherDebtId}/offers`).type('form').send({ _csrf: csrf, choice: 'monthly-2' }).expect(404);
    await agent.get(`/debts/${otherDebtId}/plan/authority/cancel`).expect(404);
    const debtId = await readyDebt();
    await agent.post(`/debts/${debtId}/offers`).type('form').send({ choice: 'monthly-2' }).expect(403);
    expect(await testDb()('payment_setups').where({ debt_id: debtId })).toEqual([]);
  });
});

describe('cancelling the card authority', () => {
  test('confirm page, then cancelled: payment_plan.updated shows it; a second cancel is refused', async () => {
    const debtId = await readyDebt();
    const agent = await signIn();
    await saveCard(agent, await arrange(agent, debtId, 'monthly-2', today), '4242424242424242');
    const [plan] = await plansOf(debtId);
    // The plan page names the card and links to stopping it (views/plan.liquid).
    const planPage = (await agent.get(`/debts/${debtId}/plan`).expect(200)).text;
    expect(planPage).toContain('We charge your card ending 4242 on each date of your plan.');
    expect(planPage).toContain(`href="/debts/${debtId}/plan/authority/cancel"`);
    const page = await agent.get(`/debts/${debtId}/plan/authority/cancel`).expect(200);
    expect(page.text).toContain('card ending 4242');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    await agent.post(`/debts/${debtId}/plan/authority/cancel`).type('form').send({}).expect(403);
    expect((await agent.post(`/debts/${debtId}/plan/authority/cancel`).type('form').send({ _csrf: csrf }).expect(200)).text).toContain('Card payments stopped');
    const [after] = await plansOf(debtId);
    expect(after.authority_canceled_at).not.toBeNull();
    expect(after.status).toBe('active');
    expect((await agent.get(`/debts/${debtId}/plan`).expect(200)).text).not.toContain('/plan/authority/cancel');
    expect(await eventTypesFor(me.tenant.tenantId, plan.id)).toEqual(['payment_plan.created', 'payment_plan.updated']);
    await agent.post(`/debts/${debtId}/plan/authority/cancel`).type('form').send({ _csrf: csrf }).expect(409);
  });
});
