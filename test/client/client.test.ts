/**
 * The typed TypeScript client `@dms/client` (README, "Use it from TypeScript") against the real
 * issuer and API: client credentials with refresh before expiry, typed calls, an
 * `Idempotency-Key` on every write (the same on a retry), retries of 429 and 503 honouring
 * `Retry-After`, the `Link` page iterator, and webhook verification of a real delivery (Standard
 * Webhooks) and of the `hmac_sha256_hex` scheme against a signer written from its definition (`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  clientCredentials,
  createDmsClient,
  nextLink,
  verifyHmacSha256HexWebhook,
  verifyStandardWebhook,
  WebhookVerificationError,
  TokenRequestError,
  type DmsClient,
} from '@dms/client';
import { API_URL, AUDIENCE, AUTH_URL, closeHarness, newTenant, type TestTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver } from '../support/webhook-receiver.js';

afterAll(closeHarness);

/** A real fetch that records what it sent (method, URL, headers) before sending it. */
function recordingFetch() {
  const sent: Array<{ method: string; url: string; headers: Headers }> = [];
  const doFetch = (req: Request) => {
    sent.push({ method: req.method, url: req.url, headers: new Headers(req.headers) });
    return fetch(req);
  };
  return { sent, doFetch };
}

function clientFor(tenant: TestTenant, extra: Partial<Parameters<typeof createDmsClient>[0]> = {}): DmsClient {
  const auth = clientCredentials({ tokenUrl: `${AUTH_URL}/oauth/token`, clientId: tenant.clientId, clientSecret: tenant.clientSecret, audience: AUDIENCE });
  return createDmsClient({ baseUrl: API_URL, auth, ...extra });
}

describe('client credentials', () => {
  test('a token is kept until shortly before it expires, then fetched again; concurrent callers share one request', async () => {
    const tenant = await newTenant();
    let clock = 1_000_000;
    const { sent, doFetch } = recordingFetch();
    const source = clientCredentials({
      tokenUrl: `${AUTH_URL}/oauth/token`,
      clientId: tenant.clientId,
      clientSecret: tenant.clientSecret,
      audience: AUDIENCE,
      refreshBeforeSeconds: 60,
      now: () => clock,
      fetch: (url, init) => doFetch(new Request(url as string, init)),
    });
    const [a, b] = await Promise.all([source.token(), source.token()]);
    expect(a).toBe(b);
    expect(sent).toHaveLength(1);
    clock += (3600 - 61) * 1000;
    expect(await source.token()).toBe(a);
    clock += 2000; // now within 60 s of expiry
    const renewed = await source.token();
    expect(sent).toHaveLength(2);
    expect(renewed).not.toBe(a);
    const api = createDmsClient({ baseUrl: API_URL, auth: source });
    expect((await api.GET('/tenants/me')).data?.id).toBe(tenant.tenantId);
  });

  test('wrong credentials are a TokenRequestError with the issuer status and code', async () => {
    const tenant = await newTenant();
    const source = clientCredentials({ tokenUrl: `${AUTH_URL}/oauth/token`, clientId: tenant.clientId, clientSecret: 'wrong', audience: AUDIENCE });
    const err = await source.token().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TokenRequestError);
    expect(err).toMatchObject({ status: 401, error: 'invalid_client' });
  });
});

describe('typed calls', () => {
  test('writes carry an Idempotency-Key; the same request with the same key replays; errors come back typed', async () => {
    const tenant = await newTenant();
    const { sent, doFetch } = recordingFetch();
    const api = clientFor(tenant, { fetch: doFetch });
    const org = await api.POST('/organisations', { body: { name: 'Northwind' } });
    expect(org.response.status).toBe(201);
    expect(org.data?.object).toBe('organisation');
    const key = sent.at(-1)!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    await api.GET('/organisations');
    expect(sent.at(-1)!.headers.get('idempotency-key')).toBeNull();

    const again = await api.POST('/organisations', { body: { name: 'Northwind' }, headers: { 'Idempotency-Key': key! } });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.id).toBe(org.data?.id);

    const bad = await api.POST('/organisations', { body: { name: '' } });
    expect(bad.data).toBeUndefined();
    expect(bad.error).toMatchObject({ code: 'validation_failed', param: 'name' });

    const off = createDmsClient({ baseUrl: API_URL, auth: { token: 'x' }, idempotencyKeys: false, fetch: doFetch, retry: { retries: 0 } });
    expect((await off.POST('/organisations', { body: { name: 'n' } })).response.status).toBe(401);
    expect(sent.at(-1)!.headers.get('idempotency-key')).toBeNull();
  });

  test('paginate follows Link rel="next" through every page, newest first', async () => {
    const tenant = await newTenant();
    const { sent, doFetch } = recordingFetch();
    const api = clientFor(tenant, { fetch: doFetch });
    const made: string[] = [];
    for (let i = 0; i < 25; i += 1) made.push((await api.POST('/organisations', { body: { name: `Org ${i}` } })).data!.id);
    const before = sent.length;
    const seen: string[] = [];
    for await (const org of api.paginate('/organisations', { params: { query: { limit: 10 } } })) seen.push(org.id);
    expect(seen).toEqual([...made].reverse());
    expect(sent.length - before).toBe(3);
    expect(sent.at(-1)!.url).toContain('after=');
    expect(nextLink('<https://a/x?after=1>; rel="next", <https://a/x>; rel="first"')).toBe('https://a/x?after=1');
    expect(nextLink('<https://a/x>; rel="first"')).toBeUndefined();
  });
});

describe('retries', () => {
  let server: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  test('429 and 503 are retried after Retry-After (else with backoff) with the same Idempotency-Key and body', async () => {
    // A stand-in API on a real socket whose first answers are 429 and 503, as a busy API's are.
    const seen: Array<{ key: string | undefined; body: string }> = [];
    const script = [
      { status: 429, headers: { 'Retry-After': '2' } },
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 201, headers: {} },
    ];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ key: req.headers['idempotency-key'] as string | undefined, body });
        const step = script[Math.min(seen.length - 1, script.length - 1)]!;
        res.writeHead(step.status, { 'Content-Type': 'application/json', ...step.headers });
        res.end(JSON.stringify(step.status === 201 ? { id: 'org_1', object: 'organisation' } : { object: 'error', code: 'rate_limited' }));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const waits: number[] = [];
    const api = createDmsClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: { token: 't' },
      retry: { sleep: async (ms) => void waits.push(ms) },
    });
    const res = await api.POST('/organisations', { body: { name: 'Busy' } });
    expect(res.response.status).toBe(201);
    expect(waits).toEqual([2000, 1000]);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(seen.map((s) => s.body)).toEqual(Array(3).fill(JSON.stringify({ name: 'Busy' })));

    // Without Retry-After: exponential backoff with jitter; after the last retry the 503 is returned.
    script.splice(0, script.length, { status: 503, headers: {} });
    seen.length = 0;
    waits.length = 0;
    const patient = createDmsClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      auth: { token: 't' },
      retry: { retries: 2, baseDelayMs: 100, random: () => 0.5, sleep: async (ms) => void waits.push(ms) },
    });
    expect((await patient.GET('/organisations')).response.status).toBe(503);
    expect(waits).toEqual([50, 100]);
    expect(seen).toHaveLength(3);
  });
});

describe('webhook verification', () => {
  test('a real delivery (standard scheme) verifies with the signing secret; a changed body or old timestamp does not', async () => {
    const tenant = await newTenant();
    const api = clientFor(tenant);
    const receiver = await startReceiver();
    const dispatcher = await startDispatcher([tenant.tenantId]);
    try {
      const hook = await api.POST('/webhooks', { body: { url: receiver.hookUrl, enabled_events: ['organisation.created'] } });
      const secret = (hook.data as { signing_secret: string }).signing_secret;
      receiver.setSigningSecret(secret);
      const org = await api.POST('/organisations', { body: { name: 'Signed Ltd' } });
      await eventually(() => receiver.received.length > 0, 'a delivery');
      const r = receiver.received[0]!;
      const headers = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
      const event = verifyStandardWebhook<{ type: string; data: { object: { id: string } } }>(secret, headers, r.body);
      expect(event.type).toBe('organisation.created');
      expect(event.data.object.id).toBe(org.data!.id);
      expect(() => verifyStandardWebhook(secret, headers, r.body.replace('Signed', 'Forged'))).toThrow(WebhookVerificationError);
      expect(() => verifyStandardWebhook(secret, headers, r.body, { now: Number(r.timestamp) + 301 })).toThrow(/tolerance/);
      // Several signatures (a rotation): any one matching is enough; a fetch Headers works too.
      const two = new Headers({ ...headers, 'webhook-signature': `v1,${Buffer.from('x').toString('base64')} ${r.signature}` });
      expect(verifyStandardWebhook(secret, two, Buffer.from(r.body))).toMatchObject({ type: 'organisation.created' });
      // And it agrees with the Standard Webhooks reference library.
      const reference = new Webhook(secret).sign('msg_1', new Date(), '{"a":1}');
      const now = Math.floor(Date.now() / 1000);
      expect(verifyStandardWebhook(secret, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': reference }, '{"a":1}')).toEqual({
        a: 1,
      });
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }
  });

  test('hmac_sha256_hex: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed by the secret as UTF-8 text, one v1 per secret', () => {
    // The signer, written from the contract's words rather than from the verifier.
    const sign = (secret: string, t: number, body: string) => createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
    const secret = 'whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=';
    const body = '{"id":"evt_1","object":"event","type":"debt.created"}';
    const t = 1_800_000_000;
    const header = `t=${t},v1=${sign(secret, t, body)}`;
    expect(verifyHmacSha256HexWebhook(secret, header, body, { now: t + 10 })).toMatchObject({ id: 'evt_1' });
    // During a rotation: the old secret's v1 first, the newest last; either matches.
    const rotated = `t=${t},v1=${sign('whsec_old', t, body)},v1=${sign(secret, t, body)}`;
    expect(verifyHmacSha256HexWebhook(secret, rotated, body, { now: t })).toMatchObject({ id: 'evt_1' });
    expect(verifyHmacSha256HexWebhook('whsec_old', rotated, body, { now: t })).toMatchObject({ id: 'evt_1' });
    for (const [h, b, now] of [
      [header, body.replace('debt', 'fake'), t],
      [`t=${t + 1},v1=${sign(secret, t, body)}`, body, t],
      [header, body, t + 301],
      [`v1=${sign(secret, t, body)}`, body, t],
      ['', body, t],
    ] as const) {
      expect(() => verifyHmacSha256HexWebhook(secret, h, b, { now })).toThrow(WebhookVerificationError);
    }
  });
});
