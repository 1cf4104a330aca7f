/**
 * Operating webhook endpoints (docs/api.md section 11) against a real dispatcher and receiver:
 * a test event to one endpoint only; retrying one delivery and recovering every failed one since a
 * time, each with a fresh schedule; re-enabling a disabled endpoint restarts its schedule; secret
 * rotation signs with both secrets for 24 h (verified with the standardwebhooks library); scopes
 * and idempotency.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import type { RunningService } from '@dms/tools/processes';
import { apiAs, closeHarness, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver, type Received } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
type Delivery = Record<string, any>;

const dispatchers: RunningService[] = [];
const receivers: Receiver[] = [];
let main: Tenant;
/** A tenant no dispatcher serves until its test starts one (states are arranged first). */
let quiet: Tenant;

async function endpointFor(t: Tenant, events: string[] = ['organisation.created']): Promise<{ id: string; secret: string; receiver: Receiver }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: events }).expect(201);
  receiver.setSigningSecret(res.body.signing_secret);
  return { id: res.body.id, secret: res.body.signing_secret, receiver };
}

async function deliveries(t: Tenant, endpointId: string): Promise<Delivery[]> {
  return (await t.api.get(`/webhooks/${endpointId}/deliveries`).query({ limit: 100 }).expect(200)).body.data;
}

async function settledDeliveries(t: Tenant, endpointId: string, count: number): Promise<Delivery[]> {
  await eventually(async () => {
    const ds = await deliveries(t, endpointId);
    return ds.length === count && ds.every((d) => d.status !== 'pending');
  }, `${count} deliveries settled`);
  return deliveries(t, endpointId);
}

function headersOf(r: Received) {
  return { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
}

function verifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  [main, quiet] = await Promise.all([signedInTenant(), signedInTenant()]);
  dispatchers.push(await startDispatcher([main.tenant.tenantId], { DISPATCH_SCHEDULE_SECONDS: '0,1,1', DISPATCH_JITTER: '0', DELIVERY_TIMEOUT_SECONDS: '2' }));
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

describe('POST /webhooks/{id}/test', () => {
  test('delivers a signed webhook.test event to that endpoint alone and answers the delivery', async () => {
    const target = await endpointFor(main, ['organisation.created']);
    const bystander = await endpointFor(main, ['*']);
    const res = await main.api.post(`/webhooks/${target.id}/test`).expect(201);
    expect(res.body).toMatchObject({ object: 'webhook_delivery', endpoint: target.id, event_type: 'webhook.test', status: 'pending', attempt_count: 0 });
    expect(res.body.id).toMatch(/^del_[0-9A-Za-z]{24}$/);

    await eventually(() => target.receiver.received.length === 1, 'test event received');
    const [got] = target.receiver.received;
    expect(got!.verified).toBe(true);
    expect(got!.event).toMatchObject({ id: res.body.event, type: 'webhook.test', data: { object: { id: target.id, object: 'webhook_endpoint' } } });
    expect(got!.body).not.toContain('whsec_');
    const [delivered] = await settledDeliveries(main, target.id, 1);
    expect(delivered).toMatchObject({ id: res.body.id, status: 'succeeded' });
    // The `*` endpoint of the same tenant gets no delivery of it.
    expect(await deliveries(main, bystander.id)).toEqual([]);
    expect(bystander.receiver.received).toEqual([]);
  });

  test('an Idempotency-Key replays the same delivery instead of sending a second test', async () => {
    const target = await endpointFor(main);
    const key = `test-${target.id}`;
    const first = await main.api.post(`/webhooks/${target.id}/test`).set('Idempotency-Key', key).expect(201);
    const again = await main.api.post(`/webhooks/${target.id}/test`).set('Idempotency-Key', key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const { n } = (await testDb()('webhook_deliveries').where({ endpoint_id: target.id }).count({ n: '*' }))[0]!;
    expect(Number(n)).toBe(1);
  });
});

describe('retry, re-enable and recover', () => {
  test('an exhausted delivery disables the endpoint; retry needs it re-enabled, then sends again with a fresh schedule', async () => {
    const ep = await endpointFor(main);
    let failing = true;
    ep.receiver.onHook(() => (failing ? 500 : 204));
    await main.api.post('/organisations', { name: 'Retry Ltd' }).expect(201);
    const [exhausted] = await settledDeliveries(main, ep.id, 1);
    expect(exhausted).toMatchObject({ status: 'failed', attempt_count: 3 });
    await eventually(async () => !(await main.api.get(`/webhooks/${ep.id}`)).body.enabled, 'endpoint disabled');

    const refused = await main.api.post(`/webhooks/${ep.id}/deliveries/${exhausted!.id}/retry`).expect(409);
    expect(refused.body.code).toBe('invalid_state_transition');

    await main.api.patch(`/webhooks/${ep.id}`, { enabled: true }).expect(200);
    failing = false;
    const retried = await main.api.post(`/webhooks/${ep.id}/deliveries/${exhausted!.id}/retry`).expect(200);
    expect(retried.body).toMatchObject({ id: exhausted!.id, status: 'pending', attempt_count: 3 });
    expect(Date.parse(retried.body.next_attempt_at)).toBeLessThanOrEqual(Date.now() + 1000);

    const [done] = await settledDeliveries(main, ep.id, 1);
    expect(done).toMatchObject({ status: 'succeeded', attempt_count: 4 });
    expect(done!.attempts.map((a: Delivery) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'succeeded'],
    ]);

    // A succeeded delivery is not sent again; an unknown or another endpoint's delivery is 404.
    expect((await main.api.post(`/webhooks/${ep.id}/deliveries/${exhausted!.id}/retry`).expect(409)).body.code).toBe('invalid_state_transition');
    await main.api.post(`/webhooks/${ep.id}/deliveries/del_000000000000000000000000/retry`).expect(404);
    const other = await endpointFor(main);
    expect((await main.api.post(`/webhooks/${other.id}/deliveries/${exhausted!.id}/retry`).expect(404)).body.code).toBe('resource_missing');
  });

  test('recover re-queues the failed deliveries since a time, not the older ones', async () => {
    const ep = await endpointFor(main);
    let failing = true;
    ep.receiver.onHook(() => (failing ? 500 : 204));
    await main.api.post('/organisations', { name: 'Before Ltd' }).expect(201);
    await settledDeliveries(main, ep.id, 1);
    // The dispatcher disables the endpoint after it records the exhausted delivery, in a statement
    // of its own: re-enabled before that, it would be disabled again and miss the next events.
    await eventually(async () => !(await main.api.get(`/webhooks/${ep.id}`)).body.enabled, 'endpoint disabled');
    await main.api.patch(`/webhooks/${ep.id}`, { enabled: true }).expect(200);
    await main.api.post('/organisations', { name: 'After One' }).expect(201);
    await main.api.post('/organisations', { name: 'After Two' }).expect(201);
    const all = await settledDeliveries(main, ep.id, 3);
    // The first to exhaust disables the endpoint; the other is then failed or canceled.
    expect(all.every((d) => d.status === 'failed' || d.status === 'canceled')).toBe(true);
    const since = all[1]!.created_at as string; // the older of the two newer ones (newest first)

    await eventually(async () => !(await main.api.get(`/webhooks/${ep.id}`)).body.enabled, 'endpoint disabled again');
    expect((await main.api.post(`/webhooks/${ep.id}/recover`, { since }).expect(409)).body.code).toBe('invalid_state_transition');
    await main.api.patch(`/webhooks/${ep.id}`, { enabled: true }).expect(200);
    failing = false;
    const res = await main.api.post(`/webhooks/${ep.id}/recover`, { since }).expect(200);
    expect(res.body).toEqual({ object: 'webhook_recovery', livemode: true, endpoint: ep.id, since: new Date(since).toISOString(), requeued: 2 });

    const after = await settledDeliveries(main, ep.id, 3);
    expect(after.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    expect((await main.api.post(`/webhooks/${ep.id}/recover`, { since: 'yesterday' }).expect(400)).body.param).toBe('since');
    // Three schedules run to their end one after the other (about 25 s on a loaded machine): more
    // than the suite's 60 s when the machine is busier still, so the waits above set the pace.
  }, 180_000);

  test('re-enabling a disabled endpoint restarts the schedule of its waiting deliveries', async () => {
    const ep = await endpointFor(quiet);
    await quiet.api.post('/organisations', { name: 'Waiting Ltd' }).expect(201);
    const [waiting] = await deliveries(quiet, ep.id);
    // Arranged as after two failed attempts of a three-step schedule, then the endpoint disabled.
    await testDb()('webhook_delivery_attempts').insert(
      [1, 2].map((attempt) => ({
        delivery_id: waiting!.id,
        attempt,
        status: 'failed',
        error: 'receiver answered 500',
        started_at: new Date(),
        delivery_created_at: waiting!.created_at,
      })),
    );
    await testDb()('webhook_deliveries')
      .where({ id: waiting!.id })
      .update({ attempt_count: 2, next_attempt_at: testDb().raw(`now() + interval '1 hour'`) });
    await testDb()('webhook_endpoints').where({ id: ep.id }).update({ enabled: false, disabled_at: testDb().fn.now() });

    await quiet.api.patch(`/webhooks/${ep.id}`, { enabled: true }).expect(200);
    const [due] = await deliveries(quiet, ep.id);
    expect(Date.parse(due!.next_attempt_at)).toBeLessThanOrEqual(Date.now() + 1000);

    // Two more failures, then success: only a full schedule (three steps from here) gets there.
    ep.receiver.onHook((_r, index) => (index < 2 ? 500 : 204));
    dispatchers.push(await startDispatcher([quiet.tenant.tenantId], { DISPATCH_SCHEDULE_SECONDS: '0,1,1', DISPATCH_JITTER: '0' }));
    const [done] = await settledDeliveries(quiet, ep.id, 1);
    expect(done).toMatchObject({ status: 'succeeded', attempt_count: 5 });
    expect((await quiet.api.get(`/webhooks/${ep.id}`)).body.enabled).toBe(true);
  });
});

describe('POST /webhooks/{id}/rotate_secret', () => {
  test('a new secret, shown once; for 24 h deliveries verify with the old or the new secret', async () => {
    const ep = await endpointFor(main);
    const rotated = await main.api.post(`/webhooks/${ep.id}/rotate_secret`).expect(200);
    const fresh = rotated.body.signing_secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(ep.secret);
    expect(rotated.body).toMatchObject({ id: ep.id, object: 'webhook_endpoint' });
    expect((await main.api.get(`/webhooks/${ep.id}`).expect(200)).body.signing_secret).toBeUndefined();
    const [row] = await testDb()('webhook_endpoints')
      .where({ id: ep.id })
      .select(testDb().raw('extract(epoch from previous_signing_secret_expires_at - now()) AS left'));
    expect(Number(row.left)).toBeGreaterThan(24 * 3600 - 60);
    expect(Number(row.left)).toBeLessThanOrEqual(24 * 3600);

    await main.api.post('/organisations', { name: 'Rotated Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 1, 'delivery after rotation');
    const both = ep.receiver.received[0]!;
    expect(both.signature.split(' ')).toHaveLength(2);
    expect(verifies(ep.secret, both)).toBe(true);
    expect(verifies(fresh, both)).toBe(true);

    // Once the overlap is over, only the new secret signs.
    await testDb()('webhook_endpoints')
      .where({ id: ep.id })
      .update({ previous_signing_secret_expires_at: testDb().raw(`now() - interval '1 second'`) });
    await main.api.post('/organisations', { name: 'Later Ltd' }).expect(201);
    await eventually(() => ep.receiver.received.length === 2, 'delivery after the overlap');
    const single = ep.receiver.received[1]!;
    expect(single.signature.split(' ')).toHaveLength(1);
    expect(verifies(fresh, single)).toBe(true);
    expect(verifies(ep.secret, single)).toBe(false);
  });
});

test('the operations need webhooks:write and are the tenant’s own', async () => {
  const ep = await endpointFor(main);
  const reader = apiAs(await tokenFor(main.tenant, { scope: 'webhooks:read' }));
  const paths = [`/webhooks/${ep.id}/test`, `/webhooks/${ep.id}/rotate_secret`, `/webhooks/${ep.id}/deliveries/del_000000000000000000000000/retry`];
  for (const path of paths) expect((await reader.post(path).expect(403)).body.code).toBe('insufficient_scope');
  expect((await reader.post(`/webhooks/${ep.id}/recover`, { since: new Date().toISOString() }).expect(403)).body.code).toBe('insufficient_scope');
  for (const path of paths) expect((await quiet.api.post(path).expect(404)).body.code).toBe('resource_missing');
});
