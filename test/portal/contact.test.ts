/**
 * Dispute or ask a question from the portal (docs/api.md section 18), over
 * HTTP against the real application and PostgreSQL: form → check your answers → an inbound
 * `portal` communication, the debt `disputed` or `queried` (no further contact), the tenant's
 * `debt.disputed` / `debt.queried` with `whodunnit` `customer:<id>`; bad answers are 400 naming
 * the field with nothing changed; another customer's debt is 404; a status that forbids it is 409.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { forbidsContact, type DebtStatus } from '@dms/domain/debts';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { debtIn, eventTypesFor } from '../support/debts.js';
import { csrfOf, signedIn, startPortal, type RunningPortal } from './steps-support.js';

let portal: RunningPortal;
let base: string;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Awaited<ReturnType<typeof seedParties>>;
let customerId: string;
let otherDebtId: string;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  customerId = parties.customerId;
  await me.api.patch(`/customers/${customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = await debtIn(me.api, { ...parties, customerId: second.body.id as string }, 'prepared');
  portal = await startPortal();
  base = portal.base;
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

/** A verified agent of the customer. */
const signIn = () => signedIn(base, me.tenant.tenantId, customerId, '1980-03-27');

const debtRow = (id: string) => testDb()('debts').where({ id }).first();
const portalComs = (id: string) => testDb()('communications').where({ debt_id: id, delivery_method: 'portal' });

const JOURNEYS: Array<['dispute' | 'question', 'disputed' | 'queried', string]> = [
  ['dispute', 'disputed', 'not_mine'],
  ['question', 'queried', 'balance'],
];

describe.each(JOURNEYS)('%s', (kind, status, reason) => {
  test(`form → check → ${status}: a portal communication, the event with customer:<id>, no further contact`, async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await signIn();
    const page = await agent.get(`/debts/${debtId}`).expect(200);
    expect(page.text).toContain(`href="/debts/${debtId}/${kind}"`);
    const csrf = await csrfOf(agent, `/debts/${debtId}/${kind}`);
    const text = 'I never had an account with you.\nPlease check.';
    const posted = await agent.post(`/debts/${debtId}/${kind}`).type('form').send({ _csrf: csrf, reason, text }).expect(303);
    expect(posted.headers.location).toBe(`/debts/${debtId}/${kind}/check`);
    expect((await debtRow(debtId)).status).toBe('prepared');
    const check = await agent.get(`/debts/${debtId}/${kind}/check`).expect(200);
    expect(check.text).toContain('Check your answers');
    expect(check.text).toContain('I never had an account with you.');
    const sent = await agent.post(`/debts/${debtId}/${kind}/check`).type('form').send({ _csrf: csrf }).expect(303);
    expect(sent.headers.location).toBe(`/debts/${debtId}/${kind}/sent`);
    await agent.get(sent.headers.location as string).expect(200);
    const debt = await debtRow(debtId);
    expect(debt.status).toBe(status);
    expect(debt.status_whodunnit).toBe(`customer:${customerId}`);
    expect(forbidsContact(debt.status as DebtStatus)).toBe(true);
    const [com, ...more] = await portalComs(debtId);
    expect(more).toEqual([]);
    expect(com).toMatchObject({ direction: 'inbound', status: 'received', body: text, classification: kind === 'dispute' ? 'dispute' : 'query' });
    expect(await eventTypesFor(me.tenant.tenantId, debtId)).toContain(`debt.${status}`);
    expect(await eventTypesFor(me.tenant.tenantId, com.id)).toEqual(['communication.received']);
    // The tenant sees it through the API.
    const api = await me.api.get(`/debts/${debtId}`).expect(200);
    expect(api.body.status.value).toBe(status);
    // The same form again is refused: the status no longer allows it.
    await agent.get(`/debts/${debtId}/${kind}`).expect(409);
  });

  test('no reason, or text over 2,000 characters: 400 naming the field, nothing changed', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await signIn();
    const csrf = await csrfOf(agent, `/debts/${debtId}/${kind}`);
    const noReason = await agent.post(`/debts/${debtId}/${kind}`).type('form').send({ _csrf: csrf, text: 'hello' }).expect(400);
    expect(noReason.text).toContain('href="#reason"');
    expect(noReason.text).toContain('Choose a reason');
    const long = await agent
      .post(`/debts/${debtId}/${kind}`)
      .type('form')
      .send({ _csrf: csrf, reason, text: 'x'.repeat(2001) })
      .expect(400);
    expect(long.text).toContain('href="#text"');
    expect(long.text).toContain('2,000 characters or fewer');
    const unknownReason = await agent.post(`/debts/${debtId}/${kind}`).type('form').send({ _csrf: csrf, reason: 'nonsense', text: 'x' }).expect(400);
    expect(unknownReason.text).toContain('href="#reason"');
    // Nothing drafted: the check page sends back to the form, and a direct POST changes nothing.
    expect((await agent.get(`/debts/${debtId}/${kind}/check`).expect(303)).headers.location).toBe(`/debts/${debtId}/${kind}`);
    await agent.post(`/debts/${debtId}/${kind}/check`).type('form').send({ _csrf: csrf }).expect(303);
    expect((await debtRow(debtId)).status).toBe('prepared');
    expect(await portalComs(debtId)).toEqual([]);
  });

  test("another customer's debt is 404 and changes nothing; without CSRF 403", async () => {
    const agent = await signIn();
    const csrf = await csrfOf(agent, '/debts');
    for (const path of [`/debts/${otherDebtId}/${kind}`, `/debts/${otherDebtId}/${kind}/check`]) {
      const res = await agent.get(path).expect(404);
      expect(res.text).not.toContain(otherDebtId);
    }
    await agent.post(`/debts/${otherDebtId}/${kind}`).type('form').send({ _csrf: csrf, reason, text: 'x' }).expect(404);
    const mine = await debtIn(me.api, parties, 'prepared');
    await agent.post(`/debts/${mine}/${kind}`).type('form').send({ reason, text: 'x' }).expect(403);
    expect((await debtRow(otherDebtId)).status).toBe('prepared');
    expect(await portalComs(otherDebtId)).toEqual([]);
  });
});

test('a signed-out visitor gets the signed-out page', async () => {
  await request(base).get(`/debts/${otherDebtId}/dispute`).expect(401);
});

test('French pages', async () => {
  const debtId = await debtIn(me.api, parties, 'prepared');
  const agent = await signIn();
  const res = await agent.get(`/debts/${debtId}/dispute?lang=fr-FR`).expect(200);
  expect(res.text).toContain('Contester cette dette');
});
