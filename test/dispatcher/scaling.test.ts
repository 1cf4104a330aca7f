/**
 * Several dispatchers on one queue (docs/api.md section 7): two at once never send an attempt twice;
 * one killed (SIGKILL) mid-delivery loses its claim when the lease runs out and another sends the
 * delivery again; one stopped with SIGTERM mid-delivery returns it to the queue at once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { API_POOL_MAX, closeHarness, signedInTenant } from '../support/harness.js';
import { mapPool } from '../../tools/src/seed/pool.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

const receivers: Receiver[] = [];
const dispatchers: RunningService[] = [];

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.stop('SIGKILL')));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

async function setUp() {
  const t = await signedInTenant();
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['*'] }).expect(201);
  receiver.setSigningSecret(res.body.signing_secret);
  return { t, receiver, endpointId: res.body.id as string };
}

async function start(tenantId: string, env: Record<string, string> = {}): Promise<RunningService> {
  const d = await startDispatcher([tenantId], env);
  dispatchers.push(d);
  return d;
}

test('two dispatchers at once: every event delivered exactly once', async () => {
  const { t, receiver, endpointId } = await setUp();
  const pair = await Promise.all([start(t.tenant.tenantId, { DISPATCH_BATCH_SIZE: '3' }), start(t.tenant.tenantId, { DISPATCH_BATCH_SIZE: '3' })]);
  const N = 40;
  // Concurrent writes, no more at once than the API has connections (see API_POOL_MAX).
  const created = await mapPool(N, API_POOL_MAX, async (i) => t.api.post('/organisations', { name: `Org ${i}` }).expect(201));
  await eventually(() => receiver.received.length >= N, `${N} deliveries`, 20_000);
  await new Promise((r) => setTimeout(r, 500));
  const ids = receiver.received.map((r) => r.id);
  expect(ids).toHaveLength(N);
  expect(new Set(ids).size).toBe(N);
  expect(new Set(receiver.received.map((r) => r.event.data.object.id))).toEqual(new Set(created.map((c) => c.body.id)));
  expect(receiver.received.every((r) => r.verified)).toBe(true);
  const list = async () => (await t.api.get(`/webhooks/${endpointId}/deliveries?limit=100`).expect(200)).body.data as any[];
  await eventually(async () => (await list()).every((d) => d.status === 'succeeded'), 'results recorded');
  const deliveries = await list();
  expect(deliveries.every((d: any) => d.status === 'succeeded' && d.attempt_count === 1 && d.attempts.length === 1)).toBe(true);
  // Between them the two processes made exactly N attempts.
  const attemptLines = () =>
    pair
      .map(
        (d) =>
          readFileSync(d.logFile, 'utf8')
            .split('\n')
            .filter((l) => l.includes('"webhook.attempt"')).length,
      )
      .reduce((a, b) => a + b);
  await eventually(() => attemptLines() >= N, 'attempts logged', 5000);
  await new Promise((r) => setTimeout(r, 200));
  expect(attemptLines()).toBe(N);
});

test('a dispatcher killed mid-delivery: another sends the delivery again after the lease', async () => {
  const { t, receiver, endpointId } = await setUp();
  const env = { DELIVERY_TIMEOUT_SECONDS: '2', DISPATCH_LEASE_SECONDS: '4' };
  const first = await start(t.tenant.tenantId, env);
  let killed: Promise<void> | undefined;
  receiver.onHook((_r, i) => {
    if (i === 0) {
      // The first dispatcher has the request in flight: kill it before it can record anything.
      killed = first.stop('SIGKILL');
      return 'hang';
    }
    return 204;
  });
  const org = (await t.api.post('/organisations', { name: 'Killed mid-delivery' }).expect(201)).body;
  await eventually(() => killed !== undefined, 'first attempt in flight');
  await killed;
  await start(t.tenant.tenantId, env);
  await eventually(() => receiver.received.length === 2, 'delivery sent again', 15_000);
  expect(receiver.received[0]!.id).toBe(receiver.received[1]!.id);
  expect(receiver.received[1]!.event.data.object.id).toBe(org.id);
  await eventually(async () => (await t.api.get(`/webhooks/${endpointId}/deliveries`)).body.data[0]?.status === 'succeeded', 'recorded');
  const d = (await t.api.get(`/webhooks/${endpointId}/deliveries`).expect(200)).body.data[0];
  expect(d.attempts.map((a: any) => [a.attempt, a.status])).toEqual([
    [1, 'failed'],
    [2, 'succeeded'],
  ]);
  expect(d.attempts[0].error).toMatch(/^interrupted/);
});

test('SIGTERM mid-delivery: the attempt returns to the queue and another dispatcher sends it', async () => {
  const { t, receiver, endpointId } = await setUp();
  const env = { DELIVERY_TIMEOUT_SECONDS: '5', SHUTDOWN_GRACE_SECONDS: '1' };
  const first = await start(t.tenant.tenantId, env);
  let stopped: Promise<void> | undefined;
  receiver.onHook((_r, i) => {
    if (i === 0) {
      stopped = first.stop('SIGTERM');
      return 'hang';
    }
    return 204;
  });
  await t.api.post('/organisations', { name: 'Stopped mid-delivery' }).expect(201);
  await eventually(() => stopped !== undefined, 'first attempt in flight');
  await stopped;
  expect(first.child.exitCode).toBe(0);
  const d0 = (await t.api.get(`/webhooks/${endpointId}/deliveries`).expect(200)).body.data[0];
  // Returned, not counted: due now with no attempt recorded.
  expect(d0).toMatchObject({ status: 'pending', attempt_count: 0, attempts: [] });
  await start(t.tenant.tenantId, env);
  await eventually(() => receiver.received.length === 2, 'delivery sent by the next dispatcher');
  await eventually(async () => (await t.api.get(`/webhooks/${endpointId}/deliveries`)).body.data[0]?.status === 'succeeded', 'recorded');
  const d = (await t.api.get(`/webhooks/${endpointId}/deliveries`).expect(200)).body.data[0];
  expect(d.attempts.map((a: any) => [a.attempt, a.status])).toEqual([[1, 'succeeded']]);
});
