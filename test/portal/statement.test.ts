/**
 * The portal's income and expenditure journey (docs/api.md section 18 "Income and expenditure"),
 * over HTTP against the real application and PostgreSQL: household → income → fixed costs →
 * flexible costs → debts → check your answers (monthly conversion shown) → stored through the
 * tenant API's store with its event → disposable income; every kind of bad field (400, nothing
 * kept); "change" links; the allow-listed return address; another customer's debt; CSRF.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { csrfOf, signedIn, startPortal, type Agent } from './steps-support.js';

let portal: Awaited<ReturnType<typeof startPortal>>;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };
let otherDebtId: string;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = (await createDebt(me.api, { ...parties, customerId: second.body.id as string })).id as string;
  portal = await startPortal();
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

/** A verified agent of the customer. */
function signIn(): Promise<Agent> {
  return signedIn(portal.base, me.tenant.tenantId, parties.customerId, '1980-03-27');
}

/** Posts `fields` on the statement page `step` of `debtId` with the page's CSRF token. */
async function answer(agent: Agent, debtId: string, step: string, fields: Record<string, string>, status: number, location?: string) {
  const path = `/debts/${debtId}/statement/${step}`;
  const res = await agent
    .post(path)
    .type('form')
    .send({ _csrf: await csrfOf(agent, path), ...fields })
    .expect(status);
  if (location) expect(res.headers.location).toBe(location);
  return res;
}

/** Every entry of a money page's groups at `amount` per `frequency`. */
function all(ids: string[], amount: string, frequency = 'monthly'): Record<string, string> {
  return Object.fromEntries(
    ids.flatMap((id) => [
      [id, amount],
      [`${id}-frequency`, frequency],
    ]),
  );
}
const INCOME = ['income-earnings', 'income-benefits', 'income-pensions', 'income-other'];
const FIXED = [
  'fixed_costs-housing',
  'fixed_costs-council_tax',
  'fixed_costs-utilities',
  'fixed_costs-childcare',
  'fixed_costs-insurance',
  'fixed_costs-transport',
];
const FLEXIBLE = ['flexible_costs-food_and_housekeeping', 'flexible_costs-personal', 'flexible_costs-communications', 'flexible_costs-leisure'];
const DEBTS = ['priority_debts-payments', 'other_debts-payments'];

/** Answers every page: earnings 300.00 weekly (1,300.00 a month), other income 0, rent 500.00 monthly, food 100.00 fortnightly, the rest 0. */
async function fillAll(agent: Agent, debtId: string) {
  await answer(agent, debtId, 'household', { adults: '2', children: '1', vehicles: '0' }, 303, `/debts/${debtId}/statement/income`);
  await answer(
    agent,
    debtId,
    'income',
    { ...all(INCOME, '0'), 'income-earnings': '300.00', 'income-earnings-frequency': 'weekly' },
    303,
    `/debts/${debtId}/statement/fixed-costs`,
  );
  await answer(agent, debtId, 'fixed-costs', { ...all(FIXED, '0'), 'fixed_costs-housing': '£500' }, 303, `/debts/${debtId}/statement/flexible-costs`);
  await answer(
    agent,
    debtId,
    'flexible-costs',
    {
      ...all(FLEXIBLE, '0'),
      'flexible_costs-food_and_housekeeping': '100',
      'flexible_costs-food_and_housekeeping-frequency': 'fortnightly',
    },
    303,
    `/debts/${debtId}/statement/debts`,
  );
  await answer(agent, debtId, 'debts', all(DEBTS, '0'), 303, `/debts/${debtId}/statement/check`);
}

describe('portal income and expenditure', () => {
  test('every page, the conversion shown, stored through the API store with its event, disposable income shown', async () => {
    const debtId = (await createDebt(me.api, parties)).id as string;
    const agent = await signIn();
    const debtPage = await agent.get(`/debts/${debtId}`).expect(200);
    expect(debtPage.text).toContain(`href="/debts/${debtId}/statement"`);
    expect(debtPage.text).toContain('Tell us about your income and expenditure');
    await agent.get(`/debts/${debtId}/statement`).expect(303).expect('Location', `/debts/${debtId}/statement/household`);
    for (const step of ['household', 'income', 'fixed-costs', 'flexible-costs', 'debts']) {
      const page = await agent.get(`/debts/${debtId}/statement/${step}`).expect(200);
      expect(page.text).toContain('<h1>');
    }
    expect((await agent.get(`/debts/${debtId}/statement/debts`)).text).toContain('Priority debts');
    // Check your answers before every page is answered goes back to the start.
    await agent.get(`/debts/${debtId}/statement/check`).expect(303);
    await agent.get(`/debts/${debtId}/statement`).expect(303);
    await fillAll(agent, debtId);
    const check = await agent.get(`/debts/${debtId}/statement/check`).expect(200);
    expect(check.text).toContain('£300.00 (Weekly), that is £1,300.00 a month');
    expect(check.text).toContain('£100.00 (Every two weeks), that is £216.67 a month');
    expect(check.text).toContain('£500.00 a month');
    for (const step of ['household', 'income', 'fixed-costs', 'flexible-costs', 'debts'])
      expect(check.text).toContain(`href="/debts/${debtId}/statement/${step}"`);
    expect((await me.api.get(`/debts/${debtId}/income_and_expenditures`).expect(200)).body.data).toHaveLength(0);

    await agent
      .post(`/debts/${debtId}/statement/check`)
      .type('form')
      .send({ _csrf: /name="_csrf" value="([^"]+)"/.exec(check.text)![1] })
      .expect(303)
      .expect('Location', `/debts/${debtId}/statement/done`);
    const done = await agent.get(`/debts/${debtId}/statement/done`).expect(200);
    // 1,300.00 − 500.00 − 216.67 = 583.33 a month.
    expect(done.text).toContain('you have £583.33 left each month');
    expect(done.text).toContain(`href="/debts/${debtId}"`);

    const list = (await me.api.get(`/debts/${debtId}/income_and_expenditures`).expect(200)).body.data as Record<string, any>[];
    expect(list).toHaveLength(1);
    const iae = list[0]!;
    expect(iae).toMatchObject({
      disposable_income: 58333,
      created_by: `customer:${parties.customerId}`,
      customer: parties.customerId,
      household: { adults: 2, children: 1, vehicles: 0 },
    });
    expect(iae.income.earnings).toEqual({ amount: 30000, frequency: 'weekly', monthly: 130000 });
    expect(iae.flexible_costs.food_and_housekeeping).toEqual({ amount: 10000, frequency: 'fortnightly', monthly: 21667 });
    expect(await eventTypesFor(me.tenant.tenantId, iae.id as string)).toEqual(['income_and_expenditure.created']);
    const events = (await me.api.get('/events').expect(200)).body.data as { type: string; data: { object: { id: string } } }[];
    expect(events.find((e) => e.data.object.id === iae.id)?.type).toBe('income_and_expenditure.created');
    // The answers are gone from the session: check your answers starts again.
    await agent.get(`/debts/${debtId}/statement/check`).expect(303).expect('Location', `/debts/${debtId}/statement`);
  });

  test('bad fields: summary linking each field, a message per field, 400, nothing kept', async () => {
    const debtId = (await createDebt(me.api, parties)).id as string;
    const agent = await signIn();
    await agent.get(`/debts/${debtId}/statement`).expect(303);
    const household = await answer(agent, debtId, 'household', { adults: '0', children: '', vehicles: '99' }, 400);
    for (const f of ['adults', 'children', 'vehicles']) {
      expect(household.text).toContain(`<a href="#${f}">`);
      expect(household.text).toContain(`id="${f}-error"`);
    }
    expect(household.text).toContain('Enter the number of adults, from 1 to 20');
    await answer(agent, debtId, 'household', { adults: '1', children: '0', vehicles: '0' }, 303);
    const income = await answer(
      agent,
      debtId,
      'income',
      {
        'income-earnings': '-5',
        'income-earnings-frequency': 'monthly',
        'income-benefits': '99999999999',
        'income-benefits-frequency': 'weekly',
        'income-pensions': '',
        'income-pensions-frequency': 'daily',
        'income-other': 'lots',
      },
      400,
    );
    expect(income.text).toContain('<a href="#income-earnings">The amount cannot be negative</a>');
    expect(income.text).toContain('<a href="#income-benefits">The amount is too large: check the figure</a>');
    expect(income.text).toContain('<a href="#income-pensions">Enter an amount, or 0 if it does not apply</a>');
    expect(income.text).toContain('<a href="#income-pensions-frequency">');
    expect(income.text).toContain('<a href="#income-other">Enter an amount in numbers');
    expect(income.text).toContain('<a href="#income-other-frequency">');
    expect(income.text).toContain('id="income-earnings-error"');
    expect(income.text).toContain('value="-5"');
    // 10,000,000.00 is the domain's bound (MAX_ENTRY_AMOUNT minor units): accepted; a penny more is not.
    const bound = await answer(agent, debtId, 'income', { ...all(INCOME, '0'), 'income-earnings': '10000000.01' }, 400);
    expect(bound.text).toContain('<a href="#income-earnings">The amount is too large');
    await answer(agent, debtId, 'income', { ...all(INCOME, '0'), 'income-earnings': '10000000.00' }, 303);
    // Nothing stored, and the refused page kept nothing: fixed costs are still unanswered.
    expect((await me.api.get(`/debts/${debtId}/income_and_expenditures`).expect(200)).body.data).toHaveLength(0);
    await agent.get(`/debts/${debtId}/statement/check`).expect(303).expect('Location', `/debts/${debtId}/statement`);
  });

  test('"change" from check your answers returns there; the return address is allow-listed', async () => {
    const debtId = (await createDebt(me.api, parties)).id as string;
    const agent = await signIn();
    await agent.get(`/debts/${debtId}/statement?return=offers`).expect(303);
    await fillAll(agent, debtId);
    const income = await agent.get(`/debts/${debtId}/statement/income`).expect(200);
    expect(income.text).toContain('value="300.00"');
    expect(income.text).toMatch(/<option value="weekly" selected>/);
    await answer(agent, debtId, 'income', all(INCOME, '10', 'monthly'), 303, `/debts/${debtId}/statement/check`);
    const check = await agent.get(`/debts/${debtId}/statement/check`).expect(200);
    expect(check.text).not.toContain('£1,300.00');
    await agent
      .post(`/debts/${debtId}/statement/check`)
      .type('form')
      .send({ _csrf: /name="_csrf" value="([^"]+)"/.exec(check.text)![1] })
      .expect(303);
    const done = await agent.get(`/debts/${debtId}/statement/done`).expect(200);
    // 40.00 − 500.00 − 216.67: short by 676.67 a month.
    expect(done.text).toContain('more than your income by £676.67 each month');
    expect(done.text).toContain(`href="/debts/${debtId}/offers"`);

    for (const evil of ['https://evil.example', '//evil.example', '/debts/x/../../admin', 'javascript:alert(1)']) {
      await agent.get(`/debts/${debtId}/statement?return=${encodeURIComponent(evil)}`).expect(303);
      await fillAll(agent, debtId);
      const page = await agent.get(`/debts/${debtId}/statement/check`).expect(200);
      await agent
        .post(`/debts/${debtId}/statement/check`)
        .type('form')
        .send({ _csrf: /name="_csrf" value="([^"]+)"/.exec(page.text)![1] })
        .expect(303);
      const text = (await agent.get(`/debts/${debtId}/statement/done`).expect(200)).text;
      expect(text).not.toContain('evil');
      expect(text).not.toContain('javascript:');
      expect(text).not.toContain('admin');
    }
  });

  test("another customer's debt is 404 on every page with nothing shown; no session is 401; no CSRF is 403", async () => {
    const agent = await signIn();
    for (const step of ['', '/household', '/income', '/check', '/done']) {
      const res = await agent.get(`/debts/${otherDebtId}/statement${step}`).expect(404);
      expect(res.text).not.toContain('Bob');
    }
    const path = `/debts/${otherDebtId}/statement/household`;
    const csrf = await csrfOf(agent, '/debts');
    await agent.post(`/debts/deb_unknown/statement/household`).type('form').send({ _csrf: csrf, adults: '1', children: '0', vehicles: '0' }).expect(404);
    await agent.post(path).type('form').send({ _csrf: csrf, adults: '1', children: '0', vehicles: '0' }).expect(404);
    await agent.post(`/debts/${otherDebtId}/statement/check`).type('form').send({ _csrf: csrf }).expect(404);
    const debtId = (await createDebt(me.api, parties)).id as string;
    await request(portal.base).get(`/debts/${debtId}/statement/household`).expect(401);
    await agent.get(`/debts/${debtId}/statement`).expect(303);
    await agent.post(`/debts/${debtId}/statement/household`).type('form').send({ adults: '1', children: '0', vehicles: '0' }).expect(403);
    await agent.get(`/debts/${debtId}/statement/income`).expect(200);
    expect((await me.api.get(`/debts/${otherDebtId}/income_and_expenditures`).expect(200)).body.data).toHaveLength(0);
  });
});
