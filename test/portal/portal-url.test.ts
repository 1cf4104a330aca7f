/**
 * A debt's `portal_url` (docs/api.md sections 5 and 18): `GET /debts/{id}` shows
 * `<PORTAL_BASE_URL>/debts/<id>` (null when the organisation turned the portal off), lists,
 * searches and events do not; in the portal that page without a session is a 401 page asking for
 * the message's link (both languages), and verifying through a link of the same customer returns
 * there, while another customer's debt page kept before verifying is not where a customer lands.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { startPortal, verifyThroughLink } from './steps-support.js';

/** The suite's API runs with the default PORTAL_BASE_URL. */
const PORTAL_BASE_URL = 'http://localhost:3005';
const BIRTH = '1815-12-10';

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Awaited<ReturnType<typeof seedParties>>;
let customerId: string;
let debtId: string;
let laterDebtId: string;
let portal: Awaited<ReturnType<typeof startPortal>>;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(me.api);
  customerId = (await me.api.post('/customers', { kind: 'individual', first_name: 'Ada', last_name: 'Byron', date_of_birth: BIRTH }).expect(201)).body
    .id as string;
  debtId = (await createDebt(me.api, { ...parties, customerId }, { account_number: 'URL-1' })).id as string;
  laterDebtId = (await createDebt(me.api, { ...parties, customerId }, { account_number: 'URL-2' })).id as string;
  portal = await startPortal();
});

afterAll(async () => {
  await portal?.stop();
  await closeHarness();
});

describe('GET /debts/{id} portal_url', () => {
  test("the retrieve shows the debt's own portal page, with no token", async () => {
    const res = await me.api.get(`/debts/${debtId}`).expect(200);
    expect(res.body.portal_url).toBe(`${PORTAL_BASE_URL}/debts/${debtId}`);
    expect(res.body).toMatchObject({ id: debtId, object: 'debt' });
    // expand[] keeps it.
    const expanded = await me.api.get(`/debts/${debtId}`).query({ 'expand[]': 'customer' }).expect(200);
    expect(expanded.body.portal_url).toBe(`${PORTAL_BASE_URL}/debts/${debtId}`);
    expect(expanded.body.customer.id).toBe(customerId);
  });

  test('lists, searches and events do not show it; another tenant gets 404', async () => {
    const list = await me.api.get('/debts').expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(debtId);
    for (const d of list.body.data) expect(d).not.toHaveProperty('portal_url');
    const found = await me.api.get('/debts/search').query({ query: 'account_number:URL-1' }).expect(200);
    expect(found.body.data.map((d: { id: string }) => d.id)).toEqual([debtId]);
    expect(found.body.data[0]).not.toHaveProperty('portal_url');
    const events = await me.api.get('/events').query({ limit: 100 }).expect(200);
    expect(events.body.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(events.body)).not.toContain('portal_url');
    await other.api.get(`/debts/${debtId}`).expect(404);
  });

  test("null while the organisation's portal is off, back when it is on", async () => {
    const org = (await me.api.post('/organisations', { name: 'Portal-less Ltd' }).expect(201)).body.id as string;
    const off = (await createDebt(me.api, { organisationId: org, customerId })).id as string;
    await me.api.patch(`/organisations/${org}`, { configurations: { portal: { enabled: false } } }).expect(200);
    expect((await me.api.get(`/debts/${off}`).expect(200)).body.portal_url).toBeNull();
    // The first organisation's debt of the same customer keeps its address.
    expect((await me.api.get(`/debts/${debtId}`).expect(200)).body.portal_url).toBe(`${PORTAL_BASE_URL}/debts/${debtId}`);
    await me.api.patch(`/organisations/${org}`, { configurations: { portal: { enabled: true } } }).expect(200);
    expect((await me.api.get(`/debts/${off}`).expect(200)).body.portal_url).toBe(`${PORTAL_BASE_URL}/debts/${off}`);
  });
});

describe("the portal's page of a debt", () => {
  test('without a session: a 401 page asking for the link of our message, in English and French, showing nothing of the debt', async () => {
    const en = await request(portal.base).get(`/debts/${debtId}`).expect(401);
    expect(en.headers['content-type']).toMatch(/^text\/html/);
    expect(en.text).toContain('Open your link to see this account');
    expect(en.text).toContain('open the link in the message we sent you');
    expect(en.text).not.toContain('URL-1');
    const fr = await request(portal.base).get(`/debts/${debtId}`).set('Accept-Language', 'fr-FR').expect(401);
    expect(fr.text).toContain('Ouvrez votre lien pour voir ce compte');
    expect(fr.text).toContain('ouvrez le lien du message que nous vous avons envoyé');
    // The list without a session keeps its signed-out page.
    expect((await request(portal.base).get('/debts').expect(401)).text).toContain('You are signed out');
  });

  test('verifying through a link of the same customer returns to the page opened before, not to the link’s debt', async () => {
    const agent = request.agent(portal.base);
    await agent.get(`/debts/${laterDebtId}`).expect(401);
    expect(await verifyThroughLink(agent, me.tenant.tenantId, customerId, BIRTH, debtId)).toBe(`/debts/${laterDebtId}`);
    expect((await agent.get(`/debts/${laterDebtId}`).expect(200)).text).toContain('URL-2');
    // Used once: verifying again (a new link) goes to that link's debt.
    expect(await verifyThroughLink(agent, me.tenant.tenantId, customerId, BIRTH, debtId)).toBe(`/debts/${debtId}`);
  });

  test("another customer's debt page kept before verifying is not where one lands, and stays refused", async () => {
    const bob = (await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201)).body
      .id as string;
    const agent = request.agent(portal.base);
    await agent.get(`/debts/${debtId}`).expect(401);
    expect(await verifyThroughLink(agent, me.tenant.tenantId, bob, '1970-01-01')).toBe('/debts');
    const refused = await agent.get(`/debts/${debtId}`).expect(404);
    expect(refused.text).not.toContain('URL-1');
  });

  test('only a debt page is kept: other paths and query strings are not', async () => {
    const agent = request.agent(portal.base);
    await agent.get(`/debts/${laterDebtId}/pay`).expect(401);
    expect(await verifyThroughLink(agent, me.tenant.tenantId, customerId, BIRTH)).toBe('/debts');
    const next = request.agent(portal.base);
    await next
      .get('/debts')
      .query({ next: `/debts/${laterDebtId}` })
      .expect(401);
    expect(await verifyThroughLink(next, me.tenant.tenantId, customerId, BIRTH)).toBe('/debts');
  });
});
