/**
 * Scale-out on one machine: two API processes and two dispatchers on one PostgreSQL (and one
 * Redis at 127.0.0.1:6379 for the rate-limit budget, when one is listening). Nothing a client
 * sees may depend on which instance answers: lists and their cursors, idempotency keys, the rate
 * limit per client, and webhook deliveries (each event delivered exactly once).
 * `npm run scale-out` runs this file alone.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createConnection } from 'node:net';
import request from 'supertest';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, newTenant, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

const RATE_LIMIT = 30;
const apis: RunningService[] = [];
const dispatchers: RunningService[] = [];
const receivers: Receiver[] = [];
let redisAvailable = false;

function redisListening(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 6379 });
    socket.setTimeout(500, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  redisAvailable = await redisListening();
  const env = {
    ...SERVICE_ENV,
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: '60',
    REDIS_URL: redisAvailable ? 'redis://127.0.0.1:6379' : '',
  };
  apis.push(...(await Promise.all([startService('api', env), startService('api', env)])));
});

afterAll(async () => {
  await Promise.all([...apis, ...dispatchers].map((s) => s.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

/** A fresh tenant (its own client, so its own rate-limit budget) and a client per API instance. */
async function tenantOnBothInstances() {
  const tenant = await newTenant();
  const token = await tokenFor(tenant);
  const on = (i: number) => {
    const agent = request(apis[i % apis.length]!.url);
    const auth = (r: request.Test) => r.set('Authorization', `Bearer ${token}`);
    return { get: (path: string) => auth(agent.get(path)), post: (path: string, body: object) => auth(agent.post(path)).send(body) };
  };
  return { tenant, on };
}

/** Path and query of the `rel="next"` link, if any. */
function nextPath(link: string | undefined): string | undefined {
  const m = /<([^>]+)>; rel="next"/.exec(link ?? '');
  if (!m) return undefined;
  const url = new URL(m[1]!);
  return url.pathname + url.search;
}

test('lists: writes on either instance, pages read alternately from both, every object once in the same order', async () => {
  const { on } = await tenantOnBothInstances();
  const created: string[] = [];
  for (let i = 0; i < 14; i++)
    created.push(
      (
        await on(i)
          .post('/organisations', { name: `Scale Org ${i}` })
          .expect(201)
      ).body.id,
    );

  const readAll = async (first: number) => {
    const ids: string[] = [];
    let path: string | undefined = '/organisations?limit=4';
    for (let page = first; path; page++) {
      const res = await on(page).get(path).expect(200);
      expect(res.headers['x-total-count']).toBe('14');
      ids.push(...res.body.data.map((o: { id: string }) => o.id));
      path = nextPath(res.headers.link);
    }
    return ids;
  };
  const fromA = await readAll(0);
  const fromB = await readAll(1);
  expect(fromA).toEqual(fromB);
  expect(new Set(fromA).size).toBe(14);
  expect([...fromA].sort()).toEqual([...created].sort());
  // Newest first: the order of creation, reversed, whichever instance wrote each one.
  expect(fromA).toEqual([...created].reverse());
});

test('idempotency: one key sent to both instances at once creates one object; replays agree', async () => {
  const { on } = await tenantOnBothInstances();
  const key = `scale-${Date.now()}`;
  const send = (i: number) => on(i).post('/organisations', { name: 'Once Only Ltd' }).set('Idempotency-Key', key);
  const concurrent = await Promise.all([send(0), send(1), send(0), send(1)]);
  const winners = concurrent.filter((r) => r.status === 201);
  for (const r of concurrent) expect([201, 409]).toContain(r.status);
  expect(winners.length).toBeGreaterThanOrEqual(1);
  expect(new Set(winners.map((r) => r.body.id)).size).toBe(1);

  const replayA = await send(0).expect(201);
  const replayB = await send(1).expect(201);
  expect(replayA.headers['idempotent-replayed']).toBe('true');
  expect(replayB.body).toEqual(replayA.body);
  expect(replayA.body.id).toBe(winners[0]!.body.id);
  const list = await on(0).get('/organisations?limit=10').expect(200);
  expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([replayA.body.id]);
});

describe('rate limit', () => {
  test('one budget per client across instances (Redis)', async () => {
    if (!redisAvailable) {
      // Without a shared store each instance keeps its own budget; nothing to prove here.
      console.warn('Redis not listening on 127.0.0.1:6379: shared rate-limit check skipped');
      return;
    }
    const { on } = await tenantOnBothInstances();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT; i++) statuses.push((await on(i).get('/organisations?limit=1')).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The budget is spent on both instances together, not RATE_LIMIT on each.
    const over = [await on(0).get('/organisations?limit=1'), await on(1).get('/organisations?limit=1')];
    expect(over.map((r) => r.status)).toEqual([429, 429]);
    expect(over[1]!.body.code).toBe('rate_limited');
  });
});

test('deliveries: two dispatchers share the queue, every event delivered exactly once', async () => {
  const { tenant, on } = await tenantOnBothInstances();
  const receiver = await startReceiver();
  receivers.push(receiver);
  const endpoint = (
    await on(0)
      .post('/webhooks', { url: receiver.hookUrl, enabled_events: ['*'] })
      .expect(201)
  ).body;
  receiver.setSigningSecret(endpoint.signing_secret);
  dispatchers.push(...(await Promise.all([startDispatcher([tenant.tenantId]), startDispatcher([tenant.tenantId])])));

  const events = 12;
  for (let i = 0; i < events; i++)
    await on(i)
      .post('/organisations', { name: `Hooked ${i}` })
      .expect(201);
  await eventually(() => receiver.received.length >= events, `${events} deliveries`, 30_000);
  // Give a duplicate, if any, time to arrive.
  await new Promise((r) => setTimeout(r, 1500));
  const ids = receiver.received.map((r) => r.id);
  expect(ids).toHaveLength(events);
  expect(new Set(ids).size).toBe(events);
  expect(receiver.received.every((r) => r.verified)).toBe(true);
});
