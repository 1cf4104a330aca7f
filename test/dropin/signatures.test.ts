/**
 * Webhook signature schemes (docs/api.md section 15) on real deliveries through a real dispatcher:
 * `hmac_sha256_hex` verified by an implementation written here with node:crypto (as a receiver
 * built for the public API does), `standard` by the `standardwebhooks` package; both sign with
 * every secret during a rotation; an unknown scheme is 400 naming `signature_scheme`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver, type Received } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;

const dispatchers: RunningService[] = [];
const receivers: Receiver[] = [];
let main: Tenant;

/**
 * What a receiver written for the public API does: parse `t=<unix>,v1=<hex>[,v1=<hex>…]`, compute
 * HMAC-SHA256 over `<t>.<raw body>` keyed by the secret's UTF-8 bytes, accept when any v1 matches.
 */
function hexVerifies(secret: string, r: Received): boolean {
  const header = r.headers['ophelos-signature'];
  if (!header) return false;
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${r.body}`).digest();
  return parts.filter(([k]) => k === 'v1').some(([, hex]) => hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
}

function standardVerifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
    return true;
  } catch {
    return false;
  }
}

async function endpoint(body: Record<string, unknown> = {}): Promise<{ id: string; secret: string; receiver: Receiver; body: Record<string, unknown> }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await main.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['organisation.created'], ...body }).expect(201);
  return { id: res.body.id, secret: res.body.signing_secret, receiver, body: res.body };
}

beforeAll(async () => {
  main = await signedInTenant();
  dispatchers.push(await startDispatcher([main.tenant.tenantId], { DISPATCH_SCHEDULE_SECONDS: '0,1,1', DISPATCH_JITTER: '0', DELIVERY_TIMEOUT_SECONDS: '2' }));
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

describe('signature_scheme', () => {
  test('defaults to standard, verified by the standardwebhooks package; no Ophelos-Signature', async () => {
    const ep = await endpoint();
    expect(ep.body.signature_scheme).toBe('standard');
    await main.api.post('/organisations', { name: 'Standard Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 1, 'standard delivery');
    const got = ep.receiver.received[0]!;
    expect(standardVerifies(ep.secret, got)).toBe(true);
    expect(got.headers['ophelos-signature']).toBeUndefined();
  });

  test('hmac_sha256_hex: one Ophelos-Signature header a hand-written receiver verifies; a wrong secret or body fails', async () => {
    const ep = await endpoint({ signature_scheme: 'hmac_sha256_hex' });
    expect(ep.body.signature_scheme).toBe('hmac_sha256_hex');
    expect((await main.api.get(`/webhooks/${ep.id}`).expect(200)).body.signature_scheme).toBe('hmac_sha256_hex');
    await main.api.post('/organisations', { name: 'Hex Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 1, 'hex delivery');
    const got = ep.receiver.received[0]!;
    expect(got.headers['ophelos-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.headers['webhook-signature']).toBeUndefined();
    const t = Number(/^t=(\d+)/.exec(got.headers['ophelos-signature']!)![1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(300);
    expect(hexVerifies(ep.secret, got)).toBe(true);
    expect(hexVerifies(`${ep.secret}x`, got)).toBe(false);
    expect(hexVerifies(ep.secret, { ...got, body: got.body.replace('Hex Ltd', 'Hax Ltd') })).toBe(false);
    expect(JSON.parse(got.body).data.object.name).toBe('Hex Ltd');
  });

  test('rotation: two v1= during the overlap (the newest last), each verifying with its own secret', async () => {
    const ep = await endpoint({ signature_scheme: 'hmac_sha256_hex' });
    const fresh = (await main.api.post(`/webhooks/${ep.id}/rotate_secret`).expect(200)).body.signing_secret as string;
    await main.api.post('/organisations', { name: 'Rotated Hex Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 1, 'hex delivery after rotation');
    const got = ep.receiver.received[0]!;
    const v1 = got.headers['ophelos-signature']!.split(',').filter((p) => p.startsWith('v1='));
    expect(v1).toHaveLength(2);
    expect(hexVerifies(ep.secret, got)).toBe(true);
    expect(hexVerifies(fresh, got)).toBe(true);
    const newest = { ...got, headers: { 'ophelos-signature': `${got.headers['ophelos-signature']!.split(',')[0]},${v1[1]}` } };
    expect(hexVerifies(fresh, newest)).toBe(true);
    expect(hexVerifies(ep.secret, newest)).toBe(false);
  });

  test('changed by PATCH (and back), both schemes covering a rotation', async () => {
    const ep = await endpoint({ signature_scheme: 'hmac_sha256_hex' });
    const fresh = (await main.api.post(`/webhooks/${ep.id}/rotate_secret`).expect(200)).body.signing_secret as string;
    expect((await main.api.patch(`/webhooks/${ep.id}`, { signature_scheme: 'standard' }).expect(200)).body.signature_scheme).toBe('standard');
    await main.api.post('/organisations', { name: 'Back To Standard Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 1, 'standard delivery after the change');
    const got = ep.receiver.received[0]!;
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(standardVerifies(ep.secret, got)).toBe(true);
    expect(standardVerifies(fresh, got)).toBe(true);
    expect(got.headers['ophelos-signature']).toBeUndefined();
  });

  test('an unknown scheme is 400 naming signature_scheme, at create and update, and nothing changes', async () => {
    const before = (await main.api.get('/webhooks').query({ limit: 100 }).expect(200)).body.data.length;
    const bad = await main.api.post('/webhooks', { url: 'https://example.com/hook', enabled_events: ['*'], signature_scheme: 'hmac_sha1' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', param: 'signature_scheme' });
    expect((await main.api.get('/webhooks').query({ limit: 100 }).expect(200)).body.data).toHaveLength(before);
    const ep = await endpoint({ signature_scheme: 'hmac_sha256_hex' });
    const badPatch = await main.api.patch(`/webhooks/${ep.id}`, { signature_scheme: 'HMAC_SHA256_HEX' }).expect(400);
    expect(badPatch.body.param).toBe('signature_scheme');
    expect((await main.api.get(`/webhooks/${ep.id}`).expect(200)).body.signature_scheme).toBe('hmac_sha256_hex');
  });
});
