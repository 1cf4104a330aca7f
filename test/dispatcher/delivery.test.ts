/**
 * Deliveries end to end (docs/api.md section 7): a debt's lifecycle produces its events, each
 * delivered to a real receiver on 127.0.0.1 that verifies the Standard Webhooks signature with the
 * `standardwebhooks` package and the bearer token against its own token endpoint; OAuth token
 * caching, expiry, one refetch after a 401, credentials rotation; no secret in any log line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { API_URL, SERVICE_ENV, closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
interface Setup {
  t: Tenant;
  receiver: Receiver;
  endpoint: { id: string; signing_secret: string };
}

const setups: Setup[] = [];
let dispatcher: RunningService;
let main: Setup;
let shortLived: Setup;

async function setUp(expiresIn?: number): Promise<Setup> {
  const t = await signedInTenant();
  const receiver = await startReceiver({ expiresIn });
  receiver.onHook((r) => (r.verified && r.authorised ? 204 : 401));
  const res = await t.api
    .post('/webhooks', {
      url: receiver.hookUrl,
      enabled_events: ['*'],
      credentials: { oauth2: { token_url: receiver.tokenUrl, client_id: receiver.clientId, client_secret: receiver.clientSecret } },
    })
    .expect(201);
  receiver.setSigningSecret(res.body.signing_secret);
  const s = { t, receiver, endpoint: res.body };
  setups.push(s);
  return s;
}

async function allEvents(t: Tenant): Promise<Array<{ id: string; type: string }>> {
  return (await t.api.get('/events?limit=100').expect(200)).body.data;
}

async function deliveries(s: Setup): Promise<Array<Record<string, any>>> {
  return (await s.t.api.get(`/webhooks/${s.endpoint.id}/deliveries?limit=100`).expect(200)).body.data;
}

beforeAll(async () => {
  main = await setUp();
  shortLived = await setUp(1);
  // Polling every 30 s: deliveries arriving within the tests' 15 s waits prove LISTEN/NOTIFY wakes
  // the dispatcher (and its own timer for retries), not polling.
  dispatcher = await startDispatcher([main.t.tenant.tenantId, shortLived.t.tenant.tenantId], { DISPATCH_POLL_SECONDS: '30' });
});

afterAll(async () => {
  await dispatcher?.stop();
  await Promise.all(setups.map((s) => s.receiver.close()));
  await closeHarness();
});

test("a debt's lifecycle: every event delivered once, signed, authorised, with one token request", async () => {
  const { t, receiver } = main;
  const { organisationId, customerId } = await seedParties(t.api);
  const debt = (
    await t.api.post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 5000 } }).expect(201)
  ).body;
  await t.api.patch(`/debts/${debt.id}`, { account_number: 'ACC-42' }).expect(200);
  await t.api.post(`/debts/${debt.id}/ready`).expect(200);
  await t.api.post(`/debts/${debt.id}/pause`, { reason: 'customer on holiday' }).expect(200);
  await t.api.post(`/debts/${debt.id}/resume`).expect(200);
  await t.api.post(`/debts/${debt.id}/payments`, { amount: 5000, currency: 'GBP', transaction_at: new Date().toISOString() }).expect(201);

  const events = await allEvents(t);
  expect(events.map((e) => e.type).sort()).toEqual(
    // docs/api.md section 8: a debt created with a breakdown also records its line item.
    [
      'organisation.created',
      'customer.created',
      'debt.created',
      'line_item.created',
      'debt.updated',
      'debt.prepared',
      'debt.paused',
      'debt.resumed',
      'payment.created',
      'debt.paid',
    ].sort(),
  );
  await eventually(() => receiver.received.length >= events.length, 'all events delivered');
  // Nothing more arrives: each event exactly once.
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received.map((r) => r.id).sort()).toEqual(events.map((e) => e.id).sort());

  for (const r of receiver.received) {
    expect(r.verified).toBe(true);
    expect(r.authorised).toBe(true);
    expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const stored = (await t.api.get(`/events/${r.id}`).expect(200)).body;
    expect(r.event).toEqual(stored);
    expect(r.event).toMatchObject({ id: r.id, object: 'event', api_version: '2026-11-01' });
  }
  const paid = receiver.received.find((r) => r.event.type === 'debt.paid')!;
  expect(paid.event.data.object).toMatchObject({ id: debt.id, status: { value: 'paid' } });

  expect(receiver.tokenRequests).toHaveLength(1);
  expect(receiver.tokenRequests[0]).toMatchObject({ ok: true, grantType: 'client_credentials', clientId: receiver.clientId });

  await eventually(async () => (await deliveries(main)).every((d) => d.status === 'succeeded'), 'deliveries recorded');
  const list = await deliveries(main);
  expect(list).toHaveLength(events.length);
  for (const d of list) {
    expect(d).toMatchObject({
      object: 'webhook_delivery',
      endpoint: main.endpoint.id,
      status: 'succeeded',
      attempt_count: 1,
      response_status: 204,
      error: null,
      next_attempt_at: null,
    });
    expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded', response_status: 204, error: null, next_attempt_at: null })]);
    expect(typeof d.duration_ms).toBe('number');
  }
});

test('only enabled event types are delivered', async () => {
  const { t, receiver } = main;
  await t.api.patch(`/webhooks/${main.endpoint.id}`, { enabled_events: ['customer.created'] }).expect(200);
  const before = receiver.received.length;
  const org = (await t.api.post('/organisations', { name: 'Filtered Ltd' }).expect(201)).body;
  const cus = (await t.api.post('/customers', { kind: 'company', full_name: 'Delivered Ltd' }).expect(201)).body;
  await eventually(() => receiver.received.some((r) => r.event.data?.object?.id === cus.id), 'customer.created delivered');
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received.slice(before).map((r) => r.event.type)).toEqual(['customer.created']);
  expect(receiver.received.some((r) => r.event.data?.object?.id === org.id)).toBe(false);
  await t.api.patch(`/webhooks/${main.endpoint.id}`, { enabled_events: ['*'] }).expect(200);
});

test('an expired token is replaced by a new one', async () => {
  const { t, receiver } = shortLived;
  await t.api.post('/organisations', { name: 'First' }).expect(201);
  await eventually(() => receiver.received.length === 1, 'first delivery');
  expect(receiver.tokenRequests).toHaveLength(1);
  await new Promise((r) => setTimeout(r, 1100));
  await t.api.post('/organisations', { name: 'Second' }).expect(201);
  await eventually(() => receiver.received.length === 2, 'second delivery');
  expect(receiver.tokenRequests).toHaveLength(2);
  expect(receiver.received.every((r) => r.authorised && r.verified)).toBe(true);
});

test('a 401 from the receiver leads to exactly one token refetch, then delivery', async () => {
  const { t, receiver } = main;
  await t.api.post('/organisations', { name: 'Warm cache' }).expect(201);
  await eventually(() => receiver.received.at(-1)?.event.data?.object?.['name' as 'id'] === 'Warm cache', 'warm-up delivery');
  const tokensBefore = receiver.tokenRequests.length;
  const receivedBefore = receiver.received.length;
  receiver.revokeTokens();
  const org = (await t.api.post('/organisations', { name: 'After revocation' }).expect(201)).body;
  await eventually(() => receiver.received.some((r) => r.event.data?.object?.id === org.id && r.authorised), 'delivery with a new token');
  const attempts = receiver.received.slice(receivedBefore);
  expect(attempts.map((r) => [r.authorised, r.answered])).toEqual([
    [false, 401],
    [true, 204],
  ]);
  expect(receiver.tokenRequests.length - tokensBefore).toBe(1);
  // The receiver has answered; the dispatcher records the result right after.
  await eventually(async () => (await deliveries(main)).find((x) => x.event === attempts[0]!.id)?.status === 'succeeded', 'result recorded');
  const d = (await deliveries(main)).find((x) => x.event === attempts[0]!.id)!;
  expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, response_status: 204 });
});

test('a receiver that keeps answering 401 gets exactly one refetch per attempt', async () => {
  const { t, receiver } = main;
  const tokensBefore = receiver.tokenRequests.length;
  const receivedBefore = receiver.received.length;
  // The first attempt's two requests (cached token, then the refetched one) are refused; later ones accepted.
  receiver.onHook((r, i) => (i < receivedBefore + 2 ? 401 : r.verified && r.authorised ? 204 : 401));
  const org = (await t.api.post('/organisations', { name: 'Unauthorised once' }).expect(201)).body;
  await eventually(() => receiver.received.some((r) => r.event.data?.object?.id === org.id && r.answered === 204), 'delivered by the retry');
  const eventId = receiver.received.at(-1)!.id;
  await eventually(async () => (await deliveries(main)).find((x) => x.event === eventId)?.status === 'succeeded', 'result recorded');
  receiver.onHook((r) => (r.verified && r.authorised ? 204 : 401));
  expect(receiver.received.slice(receivedBefore).map((r) => [r.id === eventId, r.answered])).toEqual([
    [true, 401],
    [true, 401],
    [true, 204],
  ]);
  // One refetch after the first 401 of attempt 1; attempt 2 reuses that (valid) token.
  expect(receiver.tokenRequests.length - tokensBefore).toBe(1);
  const d = (await deliveries(main)).find((x) => x.event === eventId)!;
  expect(d.attempts.map((a: any) => [a.attempt, a.status, a.response_status, a.error])).toEqual([
    [1, 'failed', 401, 'receiver answered 401'],
    [2, 'succeeded', 204, null],
  ]);
});

test('changing the credentials drops the cached token', async () => {
  const { t, receiver } = main;
  const tokensBefore = receiver.tokenRequests.length;
  receiver.setClient('rotated-client', 'rotated-secret-value-0123456789');
  await t.api
    .patch(`/webhooks/${main.endpoint.id}`, {
      credentials: { oauth2: { token_url: receiver.tokenUrl, client_id: 'rotated-client', client_secret: 'rotated-secret-value-0123456789' } },
    })
    .expect(200);
  const org = (await t.api.post('/organisations', { name: 'After rotation' }).expect(201)).body;
  await eventually(() => receiver.received.some((r) => r.event.data?.object?.id === org.id && r.authorised), 'delivery with the new client');
  const newRequests = receiver.tokenRequests.slice(tokensBefore);
  expect(newRequests).toEqual([expect.objectContaining({ clientId: 'rotated-client', ok: true })]);
});

test('no secret or token appears in any response or service log line', async () => {
  const secrets = new Set<string>(['rotated-secret-value-0123456789']);
  for (const s of setups) {
    secrets.add(s.endpoint.signing_secret);
    secrets.add(s.endpoint.signing_secret.slice('whsec_'.length));
  }
  for (const s of setups) {
    for (const r of s.receiver.received) {
      const token = /^Bearer (.+)$/.exec(r.authorization ?? '')?.[1];
      if (token) secrets.add(token);
    }
    secrets.add(s.receiver.clientSecret);
    const read = await s.t.api.get(`/webhooks/${s.endpoint.id}`).expect(200);
    const listed = await s.t.api.get('/webhooks').expect(200);
    const dels = await s.t.api.get(`/webhooks/${s.endpoint.id}/deliveries?limit=100`).expect(200);
    for (const body of [read.body, listed.body, dels.body]) for (const secret of secrets) expect(JSON.stringify(body)).not.toContain(secret);
  }
  const logs = [dispatcher.logFile, join(SERVICE_ENV.TEST_LOG_DIR!, `api-${new URL(API_URL).port}.log`)].map((f) => readFileSync(f, 'utf8'));
  expect(logs[0]).toContain('webhook.attempt');
  for (const text of logs) for (const secret of secrets) expect(text).not.toContain(secret);
});

test('the dispatcher serves health, readiness and Prometheus metrics only', async () => {
  expect((await fetch(`${dispatcher.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${dispatcher.url}/readyz`)).status).toBe(200);
  expect((await fetch(`${dispatcher.url}/webhooks`)).status).toBe(404);
  const text = await (await fetch(`${dispatcher.url}/metrics`)).text();
  expect(text).toMatch(/^webhook_delivery_attempts_total\{[^}]*outcome="succeeded"[^}]*\} [1-9]\d*$/m);
  expect(text).toMatch(/^webhook_delivery_attempts_total\{[^}]*outcome="retrying"[^}]*\} [1-9]\d*$/m);
  expect(text).toMatch(/^webhook_attempt_duration_seconds_count\{[^}]*outcome="succeeded"[^}]*\} [1-9]\d*$/m);
  expect(text).toMatch(/^webhook_oauth_token_requests_total\{[^}]*outcome="succeeded"[^}]*\} [1-9]\d*$/m);
  expect(text).toMatch(/^webhook_queue_depth\{[^}]*state="due"[^}]*\} 0$/m);
});
