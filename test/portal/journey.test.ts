/**
 * The customer portal (docs/api.md section 18), over HTTP against the
 * real application and PostgreSQL: links (unknown 404, revoked or expired 410), verification
 * (generic error, lockout after five wrong answers with `customer.locked_out`, `customer.verified`
 * and a new session id on success), CSRF, isolation between customers and tenants, headers.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createPortalLink } from '@dms/domain/portal';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { startPortal, type RunningPortal } from './steps-support.js';

let portal: RunningPortal;
let base: string;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let customerId: string;
let debtId: string;
let otherDebtId: string;
let otherTenantDebtId: string;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  const parties = await seedParties(me.api);
  customerId = parties.customerId;
  await me.api.patch(`/customers/${customerId}`, { date_of_birth: '1980-03-27' }).expect(200);
  debtId = (await createDebt(me.api, parties, { account_number: 'ACC-77' })).id as string;
  const second = await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other', date_of_birth: '1970-01-01' }).expect(201);
  otherDebtId = (await createDebt(me.api, { ...parties, customerId: second.body.id as string })).id as string;
  otherTenantDebtId = (await createDebt(other.api, await seedParties(other.api))).id as string;
  portal = await startPortal();
  base = portal.base;
});

afterAll(async () => {
  await portal.stop();
  await closeHarness();
});

async function newLink(days = 30) {
  return createPortalLink(testDb(), { tenantId: me.tenant.tenantId, customerId, ttlDays: days });
}

/** The CSRF token of the form on `path`, and the session cookie's value. */
async function formOf(agent: ReturnType<typeof request.agent>, path: string) {
  const res = await agent.get(path).expect(200);
  return { csrf: /name="_csrf" value="([^"]+)"/.exec(res.text)![1]!, html: res.text };
}

function sessionCookie(res: request.Response): string | undefined {
  const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return set.find((c) => c.startsWith('portal='))?.split(';')[0];
}

describe('links', () => {
  test('an unknown link is 404 and a revoked one 410, neither showing a debt', async () => {
    const unknown = await request(base)
      .get(`/l/${'A'.repeat(43)}`)
      .expect(404);
    expect(unknown.text).toContain('This link is not valid');
    const { row, token } = await newLink();
    await testDb()('portal_links').where({ id: row.id }).update({ revoked_at: new Date() });
    const gone = await request(base).get(`/l/${token}`).expect(410);
    expect(gone.text).not.toContain('ACC-77');
  });

  test('an expired link is 410', async () => {
    const { row, token } = await newLink();
    await testDb()('portal_links')
      .where({ id: row.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await request(base).get(`/l/${token}`).expect(410);
  });

  test('only the SHA-256 of the token is stored', async () => {
    const { row, token } = await newLink();
    const stored = await testDb()('portal_links').where({ id: row.id }).first();
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('verification', () => {
  test('the verify page shows nothing of the debt; a wrong answer is one generic 400; the right one gives a new session id and the debts', async () => {
    const { token } = await newLink();
    const agent = request.agent(base);
    const opened = await agent.get(`/l/${token}`).expect(303);
    expect(opened.headers.location).toBe('/verify');
    const before = sessionCookie(opened);
    const { csrf, html } = await formOf(agent, '/verify');
    expect(html).toContain('date of birth');
    expect(html).not.toContain('ACC-77');
    const wrong = await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1980-03-28' }).expect(400);
    expect(wrong.text).toContain('do not match our records');
    expect(wrong.text).toContain('href="#answer"');
    const right = await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1980-03-27' }).expect(303);
    expect(sessionCookie(right)).toBeDefined();
    expect(sessionCookie(right)).not.toBe(before);
    expect(await eventTypesFor(me.tenant.tenantId, customerId)).toContain('customer.verified');
    const list = await agent.get('/debts').expect(200);
    expect(list.text).toContain('ACC-77');
    // The customer's data read through this session is in their access log (docs/api.md section 20).
    const log = await me.api.get(`/customers/${customerId}/access_log`).expect(200);
    expect(log.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ operation: 'portal:debts', actor: expect.stringMatching(/^portal_session:pln_/) })]),
    );
    expect(list.text).not.toContain(otherDebtId);
    const page = await agent.get(`/debts/${debtId}`).expect(200);
    expect(page.text).toContain('Northwind Utilities');
    // Another customer's debt, another tenant's debt: 404, nothing shown.
    for (const id of [otherDebtId, otherTenantDebtId]) {
      const res = await agent.get(`/debts/${id}`).expect(404);
      expect(res.text).not.toContain(id);
    }
  });

  test('five wrong answers lock the link (customer.locked_out); the right answer is then refused', async () => {
    const { row, token } = await newLink();
    const agent = request.agent(base);
    await agent.get(`/l/${token}`).expect(303);
    const { csrf } = await formOf(agent, '/verify');
    for (let i = 0; i < 4; i++) await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '2000-01-01' }).expect(400);
    await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '2000-01-01' }).expect(429);
    await agent.post('/verify').type('form').send({ _csrf: csrf, answer: '1980-03-27' }).expect(429);
    const stored = await testDb()('portal_links').where({ id: row.id }).first();
    expect(stored.locked_until.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect(await eventTypesFor(me.tenant.tenantId, customerId)).toContain('customer.locked_out');
  });

  test('a POST without or with a wrong CSRF token is 403 and counts no attempt', async () => {
    const { row, token } = await newLink();
    const agent = request.agent(base);
    await agent.get(`/l/${token}`).expect(303);
    await agent.post('/verify').type('form').send({ answer: '1980-03-27' }).expect(403);
    await agent
      .post('/verify')
      .type('form')
      .send({ _csrf: 'x'.repeat(20), answer: '1980-03-27' })
      .expect(403);
    expect((await testDb()('portal_links').where({ id: row.id }).first()).failed_attempts).toBe(0);
  });

  test('the debts need a verified session', async () => {
    await request(base).get('/debts').expect(401);
    await request(base).get(`/debts/${debtId}`).expect(401);
  });
});

describe('headers', () => {
  test('strict CSP, no-referrer, no-store, HttpOnly SameSite=Lax cookie', async () => {
    const { token } = await newLink();
    const res = await request(base).get(`/l/${token}`).expect(303);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join(';');
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    await request(base).get('/healthz').expect(200);
  });
});
