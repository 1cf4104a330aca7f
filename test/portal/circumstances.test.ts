/**
 * Circumstances, contact preferences and the customer's own data from the portal (docs/api.md
 * section 18), over HTTP against the real application and PostgreSQL: a breathing space (kind →
 * start date → adviser's reference → check → done: `legal_protection`) and a disclosure (what →
 * words → check → done: `follow_up_required`, contact paused 30 days), each with `whodunnit`
 * `customer:<id>` and the tenant's `debt.<status>` event, refused with a 409 page when the status
 * does not allow it; contact preferences saved with `customer.updated`; the export as an attachment
 * recorded in the access log. Bad answers 400 naming the field, nothing changed; another's debt 404;
 * no CSRF token 403.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { debtIn, eventTypesFor, type Parties } from '../support/debts.js';
import { inDays } from '../worker/support.js';
import { confirm, csrfOf, formOf, signedIn, startPortal, walk } from './steps-support.js';

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let portal: Awaited<ReturnType<typeof startPortal>>;
let otherDebtId: string;

const DOB = '1980-03-27';
beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: DOB }).expect(200);
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = await debtIn(me.api, { ...parties, customerId: second.body.id as string }, 'prepared');
  portal = await startPortal();
});
afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

const agentOf = () => signedIn(portal.base, me.tenant.tenantId, parties.customerId, DOB);
const debtOf = async (id: string) => (await me.api.get(`/debts/${id}`).expect(200)).body;
const ukDay = (day: string) => day.split('-').reverse().join('/');

describe('breathing space', () => {
  test('kind → start date → reference → check → done: legal_protection with end_at, the event with customer:<id>', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await agentOf();
    const path = `/debts/${debtId}/breathing-space`;
    expect((await agent.get(`/debts/${debtId}`).expect(200)).text).toContain(`href="${path}"`);
    const check = await walk(agent, path, [{ kind: 'standard' }, { start_on: ukDay(inDays(-3)) }, { adviser_reference: 'DRS-4242' }]);
    expect(check).toContain('A standard breathing space (60 days)');
    expect(check).toContain('DRS-4242');
    expect((await debtOf(debtId)).status.value).toBe('prepared');
    expect(await confirm(agent, path)).toContain('Your breathing space has been recorded');
    const debt = await debtOf(debtId);
    expect(debt.status).toMatchObject({
      value: 'legal_protection',
      reason: 'breathing space (standard)',
      context: `adviser reference DRS-4242; started ${inDays(-3)}`,
      whodunnit: `customer:${parties.customerId}`,
    });
    expect(debt.status.end_at).not.toBeNull();
    expect(await eventTypesFor(me.tenant.tenantId, debtId)).toContain('debt.legal_protection');
    // Now protected: a second one is refused clearly.
    expect((await agent.get(path).expect(409)).text).toContain('A breathing space cannot be recorded on this account');
  });

  test('a mental-health crisis one has no end', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await agentOf();
    const path = `/debts/${debtId}/breathing-space`;
    await walk(agent, path, [{ kind: 'mental_health_crisis' }, { start_on: inDays(0) }, { adviser_reference: 'AMHP-1' }]);
    await confirm(agent, path);
    expect((await debtOf(debtId)).status).toMatchObject({ value: 'legal_protection', end_at: null });
  });

  test('bad answers are 400 linking to the field; a start the rules refuse shows the date again; nothing changed', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await agentOf();
    const path = `/debts/${debtId}/breathing-space`;
    const csrf = await csrfOf(agent, path);
    const cases: Array<[string, Record<string, string>, string]> = [
      [path, { kind: 'long' }, 'kind'],
      [`${path}/start_on`, { start_on: '31/02/2026' }, 'start_on'],
      [`${path}/adviser_reference`, { adviser_reference: '  ' }, 'adviser_reference'],
      [`${path}/adviser_reference`, { adviser_reference: 'x'.repeat(101) }, 'adviser_reference'],
    ];
    for (const [page, body, field] of cases) {
      const res = await agent
        .post(page)
        .type('form')
        .send({ _csrf: csrf, ...body })
        .expect(400);
      expect(res.text).toContain(`href="#${field}"`);
      expect(res.text).toContain(`id="${field}"`);
    }
    // A start in the future passes the form but not the rule: the date page again, with its error.
    await walk(agent, path, [{ kind: 'standard' }, { start_on: inDays(2) }, { adviser_reference: 'R-1' }]);
    const refused = await agent.post(`${path}/check`).type('form').send({ _csrf: csrf }).expect(422);
    expect(refused.text).toContain('href="#start_on"');
    expect(refused.text).toContain('The start date must be today or earlier');
    expect((await debtOf(debtId)).status.value).toBe('prepared');
    expect(await eventTypesFor(me.tenant.tenantId, debtId)).not.toContain('debt.legal_protection');
  });
});

describe('something makes this harder', () => {
  test('what → words → check → done: follow_up_required, contact paused 30 days, the event with customer:<id>', async () => {
    const debtId = await debtIn(me.api, parties, 'prepared');
    const agent = await agentOf();
    const path = `/debts/${debtId}/disclose`;
    expect((await agent.get(`/debts/${debtId}`).expect(200)).text).toContain(`href="${path}"`);
    const words = 'My partner died last month.\nI need some time.';
    const check = await walk(agent, path, [{ kind: 'bereavement' }, { details: words }]);
    expect(check).toContain('A bereavement');
    expect(check).toContain('My partner died last month.');
    expect(await confirm(agent, path)).toContain('will not contact you about this account for 30 days');
    const debt = await debtOf(debtId);
    expect(debt.status).toMatchObject({
      value: 'follow_up_required',
      reason: 'vulnerability (bereavement)',
      context: words,
      whodunnit: `customer:${parties.customerId}`,
    });
    const days = (Date.parse(debt.status.end_at as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect(await eventTypesFor(me.tenant.tenantId, debtId)).toContain('debt.follow_up_required');
    expect((await agent.get(path).expect(409)).text).toContain('This cannot be done now');
  });

  test('a status that does not allow it is refused with a clear page; text over the limit is 400', async () => {
    const disputed = await debtIn(me.api, parties, 'disputed');
    const agent = await agentOf();
    expect((await agent.get(`/debts/${disputed}/disclose`).expect(409)).text).toContain('This account is not being collected at the moment');
    const debtId = await debtIn(me.api, parties, 'prepared');
    const path = `/debts/${debtId}/disclose`;
    const csrf = await csrfOf(agent, path);
    await agent.post(path).type('form').send({ _csrf: csrf, kind: 'health' }).expect(303);
    const long = await agent
      .post(`${path}/details`)
      .type('form')
      .send({ _csrf: csrf, details: 'x'.repeat(2001) })
      .expect(400);
    expect(long.text).toContain('href="#details"');
    expect(long.text).toContain('2,000 characters or fewer');
    expect((await agent.get(`${path}/check`).expect(303)).headers.location).toBe(`${path}/details`);
    expect((await debtOf(debtId)).status.value).toBe('prepared');
  });
});

describe('boundaries', () => {
  test("another customer's debt is 404 and unchanged; without CSRF 403", async () => {
    const agent = await agentOf();
    const csrf = await csrfOf(agent, '/debts');
    for (const path of [`/debts/${otherDebtId}/breathing-space`, `/debts/${otherDebtId}/disclose`, `/debts/${otherDebtId}/disclose/check`]) {
      const res = await agent.get(path).expect(404);
      expect(res.text).not.toContain(otherDebtId);
    }
    await agent.post(`/debts/${otherDebtId}/disclose`).type('form').send({ _csrf: csrf, kind: 'health' }).expect(404);
    const mine = await debtIn(me.api, parties, 'prepared');
    await agent.post(`/debts/${mine}/disclose`).type('form').send({ kind: 'health' }).expect(403);
    await agent.post('/preferences').type('form').send({ channels: 'email' }).expect(403);
    expect((await debtOf(otherDebtId)).status.value).toBe('prepared');
    await request(portal.base).get('/preferences').expect(401);
    await request(portal.base).get('/export').expect(401);
  });
});

describe('contact preferences and the export', () => {
  test('channels → hours → language → check → saved: the same field the API shows, changed_by portal, customer.updated', async () => {
    const agent = await agentOf();
    const before = await eventTypesFor(me.tenant.tenantId, parties.customerId);
    const csrf = await csrfOf(agent, '/preferences');
    const none = await agent.post('/preferences').type('form').send({ _csrf: csrf }).expect(400);
    expect(none.text).toContain('href="#channels"');
    await agent
      .post('/preferences')
      .type('form')
      .send(formOf({ _csrf: csrf, channels: ['email', 'sms'] }))
      .expect(303);
    const order = await agent.post('/preferences/hours').type('form').send({ _csrf: csrf, hours_from: '18:00', hours_until: '09:00' }).expect(400);
    expect(order.text).toContain('href="#hours"');
    expect(order.text).toContain('The end time must be after the start time');
    await agent.post('/preferences/hours').type('form').send({ _csrf: csrf, hours_from: '22:00', hours_until: '23:00' }).expect(400);
    const check = await walk(agent, '/preferences', [{ channels: ['email', 'sms'] }, { hours_from: '09:00', hours_until: '18:00' }, { language: 'fr-FR' }]);
    expect(check).toContain('Text message (SMS)');
    expect(check).toContain('09:00 – 18:00');
    expect((await me.api.get(`/customers/${parties.customerId}`).expect(200)).body.contact_preferences?.channels).not.toEqual(['email', 'sms']);
    const done = await confirm(agent, '/preferences');
    // The customer chose French: the confirmation is in French.
    expect(done).toContain('Vos préférences de contact ont été enregistrées');
    const customer = (await me.api.get(`/customers/${parties.customerId}`).expect(200)).body;
    expect(customer.contact_preferences).toMatchObject({
      channels: ['email', 'sms'],
      hours: { from: '09:00', until: '18:00' },
      language: 'fr-FR',
      changed_by: 'portal',
    });
    expect(await eventTypesFor(me.tenant.tenantId, parties.customerId)).toEqual([...before, 'customer.updated']);
    // Shown again, the pages start from what is stored.
    const again = await agent.get('/preferences').expect(200);
    expect(again.text).toMatch(/value="email" id="channels" checked/);
    expect(again.text).not.toMatch(/value="letter" id="channels-letter" checked/);
    expect((await agent.get('/preferences/hours').expect(200)).text).toContain('<option value="09:00" selected>');
  });

  test('the export: an attachment with the same document as the API, recorded in the access log', async () => {
    const agent = await agentOf();
    const res = await agent
      .get('/export')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString('utf8')));
        r.on('end', () => done(null, text));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${parties.customerId}-export.json"`);
    const doc = JSON.parse(res.body as string);
    expect(doc).toMatchObject({ object: 'customer_export', customer: { id: parties.customerId } });
    const api = (await me.api.get(`/customers/${parties.customerId}/export`).expect(200)).body;
    expect(Object.keys(doc)).toEqual(Object.keys(api));
    expect(doc.debts.map((d: { id: string }) => d.id)).toEqual(api.debts.map((d: { id: string }) => d.id));
    expect(doc.debts.length).toBeGreaterThan(0);
    expect(doc.access_log.some((a: { operation: string }) => a.operation === 'portal:export')).toBe(true);
    const logged = await testDb()('customer_access_log').where({ customer_id: parties.customerId, operation: 'portal:export' });
    expect(logged).toHaveLength(1);
    expect(logged[0].actor).toMatch(/^portal_session:/);
    const other = await testDb()('customer_access_log')
      .where({ tenant_id: me.tenant.tenantId })
      .whereNot({ customer_id: parties.customerId })
      .where({ operation: 'portal:export' });
    expect(other).toEqual([]);
  });
});
