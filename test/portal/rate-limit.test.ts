/**
 * The portal's rate limits (docs/api.md section 18): link opens and verification attempts per link
 * and per source address, and every POST per address; over a budget the page is 429 with
 * `Retry-After`, in the page's language. Addresses come from `X-Forwarded-For` here because the
 * test's peer is loopback, a trusted proxy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { buildPortal } from '@dms/portal/app';
import { createLogger } from '@dms/logger';
import { createPortalLink } from '@dms/domain/portal';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';

describe('portal rate limits', () => {
  let server: Server;
  let portal: ReturnType<typeof buildPortal>;
  let base: string;
  let newLink: () => Promise<string>;

  beforeAll(async () => {
    const me = await signedInTenant();
    const { organisationId } = await seedParties(me.api);
    const customer = { kind: 'individual', first_name: 'Grace', last_name: 'Hopper', date_of_birth: '1906-12-09' };
    const parties = { organisationId, customerId: (await me.api.post('/customers', customer).expect(201)).body.id as string };
    await createDebt(me.api, parties);
    newLink = async () => (await createPortalLink(testDb(), { tenantId: me.tenant.tenantId, customerId: parties.customerId, ttlDays: 1 })).token;
    portal = buildPortal({
      db: testDb(),
      log: createLogger('portal', 'silent'),
      databaseUrl: process.env.TEST_DATABASE_URL!,
      baseUrl: 'http://localhost',
      sessionSecret: 's',
      rateLimits: { perLink: 2, perAddress: 4, posts: 3, windowSeconds: 600, trustProxy: 'loopback' },
    });
    server = createServer(portal);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((ok) => server?.close(ok));
    await portal?.close();
    await closeHarness();
  });

  const open = (token: string, from: string) => request(base).get(`/l/${token}`).set('X-Forwarded-For', from);

  test('one link opened too often is refused whatever the address, with Retry-After and a page saying so', async () => {
    const token = await newLink();
    await open(token, '10.0.0.1').expect(303);
    await open(token, '10.0.0.2').expect(303);
    const refused = await open(token, '10.0.0.3').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(refused.text).toContain('Too many attempts');
    expect(refused.text).toContain('10 min');
  });

  test('one address opening too many links is refused; another address is not', async () => {
    for (let i = 0; i < 4; i++) await open(await newLink(), '10.0.1.1').expect(303);
    const token = await newLink();
    await open(token, '10.0.1.1').expect(429);
    await open(token, '10.0.1.2').expect(303);
  });

  test('verification attempts count against the link', async () => {
    const agent = request.agent(base);
    await agent
      .get(`/l/${await newLink()}`)
      .set('X-Forwarded-For', '10.0.2.1')
      .expect(303);
    const form = await agent.get('/verify').set('X-Forwarded-For', '10.0.2.1').expect(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    const answer = (from: string) => agent.post('/verify').set('X-Forwarded-For', from).type('form').send({ _csrf: csrf, answer: '1900-01-01' });
    await answer('10.0.2.1').expect(400);
    await answer('10.0.2.2').expect(400);
    const refused = await answer('10.0.2.3').expect(429);
    expect(refused.text).toContain('Too many attempts');
  });

  test('every POST counts per address, in French when asked', async () => {
    for (let i = 0; i < 3; i++) await request(base).post('/sign-out').set('X-Forwarded-For', '10.0.3.1').expect(403);
    const refused = await request(base).post('/sign-out').set('X-Forwarded-For', '10.0.3.1').set('Accept-Language', 'fr').expect(429);
    expect(refused.text).toContain('Trop de tentatives');
    expect(refused.headers['retry-after']).toBeDefined();
    await request(base).post('/sign-out').set('X-Forwarded-For', '10.0.3.2').expect(403);
  });
});
