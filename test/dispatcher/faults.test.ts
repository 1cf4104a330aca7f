/**
 * Delivery faults (docs/api.md section 7) against a dispatcher with a 1 s request time limit and the
 * test schedule "0,1,2" (three attempts): receiver down then back, 500s (and Retry-After), time-outs,
 * a failing token endpoint. Every attempt is recorded, retries keep to the schedule, and an
 * endpoint failing the whole schedule is disabled with a `webhook.disabled` log line. Plus the
 * connect-time SSRF guard of a dispatcher that does not allow private targets.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
interface Scenario {
  t: Tenant;
  receiver: Receiver;
  endpointId: string;
}

const SCHEDULE = [0, 1, 2];
const JITTER = 0.1;
const receivers: Receiver[] = [];
const dispatchers: RunningService[] = [];
let down: Scenario, errors: Scenario, slow: Scenario, badToken: Scenario, nullToken: Scenario, redirecting: Scenario;

async function scenario(opts: { oauth?: boolean; url?: (r: Receiver) => string; tokenUrl?: (r: Receiver) => string } = {}): Promise<Scenario> {
  const t = await signedInTenant();
  const receiver = await startReceiver();
  receivers.push(receiver);
  const body: Record<string, unknown> = { url: opts.url?.(receiver) ?? receiver.hookUrl, enabled_events: ['*'] };
  if (opts.oauth) {
    body.credentials = {
      oauth2: { token_url: opts.tokenUrl?.(receiver) ?? receiver.tokenUrl, client_id: receiver.clientId, client_secret: receiver.clientSecret },
    };
  }
  const res = await t.api.post('/webhooks', body).expect(201);
  receiver.setSigningSecret(res.body.signing_secret);
  return { t, receiver, endpointId: res.body.id };
}

async function deliveryOf(s: Scenario): Promise<Record<string, any> | undefined> {
  return (await s.t.api.get(`/webhooks/${s.endpointId}/deliveries`).expect(200)).body.data[0];
}

/** Waits until the scenario's only delivery leaves `pending`; returns it. */
async function settled(s: Scenario, timeoutMs = 20_000): Promise<Record<string, any>> {
  await eventually(async () => ['succeeded', 'failed'].includes((await deliveryOf(s))?.status), 'delivery settled', timeoutMs);
  return (await deliveryOf(s))!;
}

function expectBackoff(attempts: Array<{ started_at: string }>, minimumGaps: number[]): void {
  for (let i = 1; i < attempts.length; i++) {
    const gap = (Date.parse(attempts[i]!.started_at) - Date.parse(attempts[i - 1]!.started_at)) / 1000;
    expect(gap).toBeGreaterThanOrEqual(minimumGaps[i - 1]! * (1 - JITTER) - 0.05);
  }
}

async function expectDisabled(s: Scenario, dispatcher: RunningService): Promise<void> {
  const endpoint = (await s.t.api.get(`/webhooks/${s.endpointId}`).expect(200)).body;
  expect(endpoint.enabled).toBe(false);
  await eventually(
    () =>
      readFileSync(dispatcher.logFile, 'utf8')
        .split('\n')
        .some((l) => l.includes('"webhook.disabled"') && l.includes(s.endpointId)),
    'webhook.disabled logged',
    5000,
  );
  // A disabled endpoint gets no new deliveries.
  const before = (await s.t.api.get(`/webhooks/${s.endpointId}/deliveries`).expect(200)).headers['x-total-count'];
  await s.t.api.post('/organisations', { name: 'After disable' }).expect(201);
  const after = (await s.t.api.get(`/webhooks/${s.endpointId}/deliveries`).expect(200)).headers['x-total-count'];
  expect(after).toBe(before);
}

beforeAll(async () => {
  [down, errors, slow, badToken, nullToken, redirecting] = await Promise.all([
    scenario(),
    scenario(),
    scenario(),
    scenario({ oauth: true }),
    scenario({ oauth: true }),
    scenario(),
  ]);
  dispatchers.push(
    await startDispatcher(
      [down, errors, slow, badToken, nullToken, redirecting].map((s) => s.t.tenant.tenantId),
      {
        DISPATCH_SCHEDULE_SECONDS: SCHEDULE.join(','),
        DISPATCH_JITTER: String(JITTER),
        DELIVERY_TIMEOUT_SECONDS: '1',
      },
    ),
  );
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

test('receiver down, then back: delivered by a retry, nothing lost', async () => {
  await down.receiver.down();
  const org = (await down.t.api.post('/organisations', { name: 'Down Ltd' }).expect(201)).body;
  // Bring the receiver back as soon as the first attempt is recorded (read straight from the table:
  // the retry is due a second later).
  await eventually(
    async () => (await testDb()('webhook_deliveries').where({ endpoint_id: down.endpointId }).first())?.last_error === 'connection refused',
    'first attempt failed',
  );
  await down.receiver.up();
  const d = await settled(down);
  expect(d.status).toBe('succeeded');
  expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', response_status: null, error: 'connection refused' });
  expect(d.attempts[0].next_attempt_at).not.toBeNull();
  expect(d.attempts.at(-1)).toMatchObject({ status: 'succeeded', response_status: 204 });
  expect(down.receiver.received.map((r) => r.event.data.object.id)).toEqual([org.id]);
  expect(down.receiver.received[0]!.verified).toBe(true);
});

test('500s: every attempt recorded on the schedule (Retry-After honoured), then the endpoint is disabled', async () => {
  errors.receiver.onHook((_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '2' } } : 500));
  await errors.t.api.post('/organisations', { name: 'Errors Ltd' }).expect(201);
  const d = await settled(errors);
  expect(d).toMatchObject({ status: 'failed', attempt_count: 3, response_status: 500, error: 'receiver answered 500', next_attempt_at: null });
  expect(d.attempts.map((a: any) => [a.attempt, a.status, a.response_status])).toEqual([
    [1, 'failed', 503],
    [2, 'failed', 500],
    [3, 'failed', 500],
  ]);
  expect(d.attempts.slice(0, 2).every((a: any) => a.next_attempt_at !== null)).toBe(true);
  expect(d.attempts[2].next_attempt_at).toBeNull();
  // Retry-After: 2 stretches the first 1 s step to 2 s.
  expectBackoff(d.attempts, [2 / (1 - JITTER), SCHEDULE[2]!]);
  expect(errors.receiver.received).toHaveLength(3);
  expect(new Set(errors.receiver.received.map((r) => r.id)).size).toBe(1);
  await expectDisabled(errors, dispatchers[0]!);
});

test('time-outs: each attempt is cut at the time limit and recorded', async () => {
  slow.receiver.onHook(() => 'hang');
  await slow.t.api.post('/organisations', { name: 'Slow Ltd' }).expect(201);
  const d = await settled(slow);
  expect(d).toMatchObject({ status: 'failed', attempt_count: 3, response_status: null, error: 'timed out after 1 s' });
  for (const a of d.attempts) {
    expect(a).toMatchObject({ status: 'failed', error: 'timed out after 1 s' });
    expect(a.duration_ms).toBeGreaterThanOrEqual(900);
  }
  expectBackoff(d.attempts, [SCHEDULE[1]! + 1, SCHEDULE[2]! + 1]);
  await expectDisabled(slow, dispatchers[0]!);
});

test('a failing token endpoint fails the attempt with a clear error; nothing is sent unauthorised', async () => {
  badToken.receiver.onToken(() => ({ status: 500, body: { error: 'server_error' } }));
  await badToken.t.api.post('/organisations', { name: 'Token trouble Ltd' }).expect(201);
  const d = await settled(badToken);
  expect(d).toMatchObject({
    status: 'failed',
    attempt_count: 3,
    response_status: null,
    error: 'token request failed: token endpoint answered 500 (server_error)',
  });
  expect(d.attempts).toHaveLength(3);
  expectBackoff(d.attempts, SCHEDULE.slice(1));
  expect(badToken.receiver.tokenRequests).toHaveLength(3);
  expect(badToken.receiver.received).toHaveLength(0);
  await expectDisabled(badToken, dispatchers[0]!);
  const log = readFileSync(dispatchers[0]!.logFile, 'utf8');
  expect(log).toContain('token request failed');
  expect(log).not.toContain(badToken.receiver.clientSecret);
});

test('a token response that is JSON but not an object (null) is a failed token request, named as such', async () => {
  nullToken.receiver.onToken(() => ({ status: 200, body: null }));
  await nullToken.t.api.post('/organisations', { name: 'Null token Ltd' }).expect(201);
  const d = await settled(nullToken);
  expect(d.attempts.map((a: any) => a.error)).toEqual(Array(3).fill('token request failed: token response has no access_token'));
  expect(nullToken.receiver.received).toHaveLength(0);
});

test('redirects are not followed: a 3xx is a failed attempt', async () => {
  const elsewhere = await startReceiver();
  receivers.push(elsewhere);
  redirecting.receiver.onHook((_r, i) => (i === 0 ? { status: 307, headers: { location: elsewhere.hookUrl } } : 204));
  await redirecting.t.api.post('/organisations', { name: 'Redirect Ltd' }).expect(201);
  const d = await settled(redirecting);
  expect(d.attempts.map((a: any) => [a.status, a.response_status, a.error])).toEqual([
    ['failed', 307, 'receiver answered 307'],
    ['succeeded', 204, null],
  ]);
  expect(elsewhere.received).toHaveLength(0);
});

test('a dispatcher that forbids private targets never connects to them, whatever the URL was when registered', async () => {
  const byName = await scenario({ oauth: false, url: (r) => r.hookUrl.replace('127.0.0.1', 'localhost') });
  const byAddress = await scenario({ oauth: false });
  // IPv4-compatible ::127.0.0.1 (::/96), which testers found the dispatcher tried to reach.
  const byCompatible = await scenario({ oauth: false, url: (r) => r.hookUrl.replace('127.0.0.1', '[::127.0.0.1]') });
  const byTokenUrl = await scenario({
    oauth: true,
    url: () => 'https://hooks.example.com/never',
    tokenUrl: (r) => r.tokenUrl.replace('127.0.0.1', 'localhost'),
  });
  const strict = await startDispatcher(
    [byName, byAddress, byTokenUrl, byCompatible].map((s) => s.t.tenant.tenantId),
    {
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false',
      DISPATCH_SCHEDULE_SECONDS: '0',
    },
  );
  dispatchers.push(strict);
  for (const s of [byName, byAddress, byTokenUrl, byCompatible]) await s.t.api.post('/organisations', { name: 'Private target' }).expect(201);
  const [a, b, c, d] = await Promise.all([settled(byName), settled(byAddress), settled(byTokenUrl), settled(byCompatible)]);
  expect(a).toMatchObject({ status: 'failed', error: expect.stringMatching(/^refused: localhost resolves to 127\.0\.0\.1 \(loopback\)/) });
  expect(b).toMatchObject({ status: 'failed', error: expect.stringMatching(/^refused: 127\.0\.0\.1 .*loopback/) });
  expect(c).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/^token request failed: refused: localhost resolves to 127\.0\.0\.1 \(loopback\)/),
  });
  expect(d).toMatchObject({ status: 'failed', error: expect.stringMatching(/^refused: ::7f00:1 .*\(loopback\)/) });
  for (const s of [byName, byAddress, byTokenUrl, byCompatible]) {
    expect(s.receiver.received).toHaveLength(0);
    expect(s.receiver.tokenRequests).toHaveLength(0);
  }
});
