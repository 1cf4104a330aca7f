/**
 * Time to pay from the portal (docs/api.md section 18, "Time to pay"), over HTTP against the real
 * application and PostgreSQL: the plan page and its instalments; delay the next payment (a date up
 * to 14 days later → check → done) and change the day of future payments (→ check → done), each
 * the domain's change with `payment_plan.updated` seen by the tenant, once per instalment (then a
 * clear 409 page); bad answers 400 naming the field with nothing changed; another customer's debt
 * 404; no CSRF token 403; each plan page read in the access log.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { debtIn, eventTypesFor, type Parties } from '../support/debts.js';
import { inDays, payingDebt } from '../worker/support.js';
import { confirm, csrfOf, signedIn, startPortal, walk, type Agent } from './steps-support.js';

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let portal: Awaited<ReturnType<typeof startPortal>>;
let other: { debtId: string; planId: string };

const DOB = '1980-03-27';
beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: DOB }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  other = await payingDebt(me.api, { ...parties, customerId: second.body.id as string }, { start_on: inDays(1), grace_days: 2 });
  portal = await startPortal();
});
afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

const agentOf = () => signedIn(portal.base, me.tenant.tenantId, parties.customerId, DOB);
const planOf = async (id: string) => (await me.api.get(`/payment_plans/${id}`).expect(200)).body;
const dates = (plan: { schedule: Array<{ due_on: string }> }) => plan.schedule.map((i) => i.due_on);
/** A date as the pages show it in en-GB (weekday, day, month, year). */
const shown = (day: string) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(day));

describe('the plan page', () => {
  test('shows the upcoming instalments with amounts and dates, offers both kinds of time, and is in the access log', async () => {
    const { debtId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent = await agentOf();
    expect((await agent.get(`/debts/${debtId}`).expect(200)).text).toContain(`href="/debts/${debtId}/plan"`);
    const page = (await agent.get(`/debts/${debtId}/plan`).expect(200)).text;
    expect(page).toContain('Your payment plan');
    expect(page).toContain('Every week');
    expect(page.match(/£50\.00/g)).toHaveLength(2);
    // Table cells write days in the medium style ("28 Nov 2026"), to fit 320 px.
    const cell = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
    expect(page).toContain(`<td>${cell.format(new Date(inDays(1)))}</td>`);
    expect(page).toContain(`<td>${cell.format(new Date(inDays(8)))}</td>`);
    expect(page).toContain(`href="/debts/${debtId}/plan/delay"`);
    expect(page).toContain(`href="/debts/${debtId}/plan/day"`);
    const log = await testDb()('customer_access_log').where({ customer_id: parties.customerId, operation: 'portal:plan' });
    expect(log.length).toBeGreaterThan(0);
    expect(log[0].actor).toMatch(/^portal_session:/);
  });

  test('a debt without a plan says so, and its journeys are refused with a clear page', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await agentOf();
    expect((await agent.get(`/debts/${debtId}/plan`).expect(200)).text).toContain('There is no payment plan running on this account.');
    expect((await agent.get(`/debts/${debtId}/plan/delay`).expect(409)).text).toContain('There is no payment plan running');
    expect((await agent.get(`/debts/${debtId}/plan/day`).expect(409)).text).toContain('This cannot be done now');
  });
});

describe('delay the next payment', () => {
  test('a date → check → done: the schedule moves, payment_plan.updated for the tenant; then not offered again', async () => {
    const { debtId, planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent = await agentOf();
    const path = `/debts/${debtId}/plan/delay`;
    const form = (await agent.get(path).expect(200)).text;
    expect(form.match(/type="radio" name="due_on"/g)).toHaveLength(14);
    expect(form).toContain('Your next payment of £50.00 is due on');
    expect(form).not.toContain('field-error');
    expect(form).toContain(shown(inDays(15)));
    expect(form).not.toContain(`value="${inDays(16)}"`);
    const check = await walk(agent, path, [{ due_on: inDays(6) }]);
    expect(check).toContain('Check your answers');
    expect(check).toContain(shown(inDays(6)));
    expect(dates(await planOf(planId))).toEqual([inDays(1), inDays(8)]);
    const done = await confirm(agent, path);
    expect(done).toContain('Your next payment has been delayed');
    expect(done).toContain(shown(inDays(6)));
    const plan = await planOf(planId);
    expect(dates(plan)).toEqual([inDays(6), inDays(13)]);
    expect(plan.schedule[0]).toMatchObject({ delayed: true });
    expect(await eventTypesFor(me.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.updated']);
    // Once per instalment: the plan page says so, the journey is refused, nothing changes.
    const page = (await agent.get(`/debts/${debtId}/plan`).expect(200)).text;
    expect(page).toContain('You have already delayed your next payment');
    expect(page).not.toContain(`href="${path}"`);
    expect((await agent.get(path).expect(409)).text).toContain('You have already delayed your next payment');
    const csrf = await csrfOf(agent, `/debts/${debtId}/plan`);
    await agent
      .post(path)
      .type('form')
      .send({ _csrf: csrf, due_on: inDays(10) })
      .expect(409);
    await agent.post(`${path}/check`).type('form').send({ _csrf: csrf }).expect(409);
    expect(dates(await planOf(planId))).toEqual([inDays(6), inDays(13)]);
    expect(await eventTypesFor(me.tenant.tenantId, planId)).toHaveLength(2);
  });

  test('no date, or one beyond 14 days: 400 with the error summary linking to the field, nothing changed', async () => {
    const { debtId, planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent = await agentOf();
    const path = `/debts/${debtId}/plan/delay`;
    const csrf = await csrfOf(agent, path);
    for (const body of [{}, { due_on: inDays(16) }, { due_on: inDays(1) }, { due_on: 'tomorrow' }]) {
      const res = await agent
        .post(path)
        .type('form')
        .send({ _csrf: csrf, ...body })
        .expect(400);
      expect(res.text).toContain('href="#due_on"');
      expect(res.text).toContain('Choose a date for your next payment');
      expect(res.text).toContain('class="field field-error"');
    }
    // Nothing kept: the check page sends back to the question; the plan is as it was.
    expect((await agent.get(`${path}/check`).expect(303)).headers.location).toBe(path);
    await agent.post(`${path}/check`).type('form').send({ _csrf: csrf }).expect(303);
    expect(dates(await planOf(planId))).toEqual([inDays(1), inDays(8)]);
    expect(await eventTypesFor(me.tenant.tenantId, planId)).toEqual(['payment_plan.created']);
  });
});

describe('change the day of future payments', () => {
  test('a date → check → done: the next and later instalments follow it; once per instalment; the delay is still offered', async () => {
    const { debtId, planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent = await agentOf();
    const path = `/debts/${debtId}/plan/day`;
    const form = (await agent.get(path).expect(200)).text;
    // From today to the day before the second instalment, without the current date.
    expect(form.match(/type="radio" name="next_due_on"/g)).toHaveLength(7);
    expect(form).not.toContain(`value="${inDays(1)}"`);
    const bad = await agent
      .post(path)
      .type('form')
      .send({ _csrf: await csrfOf(agent, path), next_due_on: inDays(8) })
      .expect(400);
    expect(bad.text).toContain('href="#next_due_on"');
    expect(await walk(agent, path, [{ next_due_on: inDays(3) }])).toContain(shown(inDays(3)));
    expect(await confirm(agent, path)).toContain(shown(inDays(3)));
    expect(dates(await planOf(planId))).toEqual([inDays(3), inDays(10)]);
    expect((await planOf(planId)).schedule[0]).toMatchObject({ day_changed: true });
    expect(await eventTypesFor(me.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.updated']);
    expect((await agent.get(path).expect(409)).text).toContain('You have already changed the day of your next payment');
    const page = (await agent.get(`/debts/${debtId}/plan`).expect(200)).text;
    expect(page).toContain(`href="/debts/${debtId}/plan/delay"`);
  });
});

describe('a date chosen before the plan moved', () => {
  test('is refused on its question (422) and nothing changes', async () => {
    const { debtId, planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const [first, second] = [await agentOf(), await agentOf()];
    await walk(first, `/debts/${debtId}/plan/delay`, [{ due_on: inDays(2) }]);
    // Meanwhile, in another session, the day changes: the next payment is now inDays(5).
    await walk(second, `/debts/${debtId}/plan/day`, [{ next_due_on: inDays(5) }]);
    await confirm(second, `/debts/${debtId}/plan/day`);
    const stale = await first
      .post(`/debts/${debtId}/plan/delay/check`)
      .type('form')
      .send({ _csrf: await csrfOf(first, `/debts/${debtId}/plan`) })
      .expect(422);
    expect(stale.text).toContain('href="#due_on"');
    expect(stale.text).toContain('That date can no longer be chosen');
    expect(dates(await planOf(planId))).toEqual([inDays(5), inDays(12)]);
    expect(await eventTypesFor(me.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.updated']);
  });
});

describe('boundaries', () => {
  test("another customer's plan is 404 everywhere, nothing shown or changed", async () => {
    const agent = await agentOf();
    const csrf = await csrfOf(agent, '/debts');
    for (const path of [
      `/debts/${other.debtId}/plan`,
      `/debts/${other.debtId}/plan/delay`,
      `/debts/${other.debtId}/plan/day`,
      `/debts/${other.debtId}/plan/delay/check`,
    ]) {
      const res = await agent.get(path).expect(404);
      expect(res.text).not.toContain('£50.00');
    }
    await agent
      .post(`/debts/${other.debtId}/plan/delay`)
      .type('form')
      .send({ _csrf: csrf, due_on: inDays(5) })
      .expect(404);
    await agent.post(`/debts/${other.debtId}/plan/day/check`).type('form').send({ _csrf: csrf }).expect(404);
    expect(dates(await planOf(other.planId))).toEqual([inDays(1), inDays(8)]);
  });

  test('without a CSRF token 403; signed out 401', async () => {
    const { debtId, planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent: Agent = await agentOf();
    await agent
      .post(`/debts/${debtId}/plan/delay`)
      .type('form')
      .send({ due_on: inDays(5) })
      .expect(403);
    await agent.post(`/debts/${debtId}/plan/delay/check`).type('form').send({}).expect(403);
    expect(dates(await planOf(planId))).toEqual([inDays(1), inDays(8)]);
    const { default: request } = await import('supertest');
    await request(portal.base).get(`/debts/${debtId}/plan`).expect(401);
  });

  test('French pages', async () => {
    const { debtId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
    const agent = await agentOf();
    expect((await agent.get(`/debts/${debtId}/plan?lang=fr-FR`).expect(200)).text).toContain('Votre échéancier');
    expect((await agent.get(`/debts/${debtId}/plan/delay`).expect(200)).text).toContain('Reporter le prochain paiement');
  });
});
