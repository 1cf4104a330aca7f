/**
 * When a failed schedule disables an endpoint (docs/api.md section 7): only when no delivery to it
 * succeeded since the failed delivery began. A receiver that rejects one message but accepts the
 * others stays enabled; one whose only success came before the failing delivery is disabled.
 * "Succeeded since" is read from the deliveries (migration 009_delivery_success), not from a
 * per-attempt stamp on the endpoint row.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
interface Scenario {
  t: Tenant;
  receiver: Receiver;
  endpointId: string;
}

/** Organisations with this name are the message the receivers reject. */
const POISON = 'Poison Ltd';
const receivers: Receiver[] = [];
let dispatcher: RunningService;
let mixed: Scenario, earlier: Scenario;

async function scenario(): Promise<Scenario> {
  const t = await signedInTenant();
  const receiver = await startReceiver();
  receivers.push(receiver);
  receiver.onHook((r) => ((r.event.data.object as { name?: string }).name === POISON ? 500 : 204));
  const res = await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['organisation.created'] }).expect(201);
  receiver.setSigningSecret(res.body.signing_secret);
  return { t, receiver, endpointId: res.body.id };
}

/** Waits until every delivery of the scenario has left `pending`; returns them by organisation name. */
async function settled(s: Scenario, expected: number): Promise<Map<string, Record<string, any>>> {
  const all = async () => (await s.t.api.get(`/webhooks/${s.endpointId}/deliveries`).query({ limit: 100 }).expect(200)).body.data as Array<Record<string, any>>;
  await eventually(
    async () => {
      const ds = await all();
      return ds.length === expected && ds.every((d) => d.status !== 'pending');
    },
    'deliveries settled',
    20_000,
  );
  const deliveries = await all();
  const byName = new Map<string, Record<string, any>>();
  for (const r of s.receiver.received) {
    const d = deliveries.find((x) => x.event === r.event.id);
    if (d) byName.set((r.event.data.object as { name?: string }).name!, d);
  }
  return byName;
}

function disabledLogged(s: Scenario): boolean {
  return readFileSync(dispatcher.logFile, 'utf8')
    .split('\n')
    .some((l) => l.includes('"webhook.disabled"') && l.includes(s.endpointId));
}

beforeAll(async () => {
  [mixed, earlier] = await Promise.all([scenario(), scenario()]);
  dispatcher = await startDispatcher([mixed.t.tenant.tenantId, earlier.t.tenant.tenantId], {
    DISPATCH_SCHEDULE_SECONDS: '0,1,1',
    DISPATCH_JITTER: '0',
    DELIVERY_TIMEOUT_SECONDS: '1',
  });
});

afterAll(async () => {
  await dispatcher?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await closeHarness();
});

test('a delivery succeeding after the failed one began keeps the endpoint enabled', async () => {
  await mixed.t.api.post('/organisations', { name: POISON }).expect(201);
  await mixed.t.api.post('/organisations', { name: 'Fine Ltd' }).expect(201);
  const deliveries = await settled(mixed, 2);
  expect(deliveries.get(POISON)).toMatchObject({ status: 'failed', attempt_count: 3 });
  expect(deliveries.get('Fine Ltd')).toMatchObject({ status: 'succeeded' });
  expect((await mixed.t.api.get(`/webhooks/${mixed.endpointId}`).expect(200)).body.enabled).toBe(true);
  expect(disabledLogged(mixed)).toBe(false);
});

test('a success from before the failed delivery began does not keep the endpoint enabled', async () => {
  await earlier.t.api.post('/organisations', { name: 'Fine Ltd' }).expect(201);
  await settled(earlier, 1);
  await earlier.t.api.post('/organisations', { name: POISON }).expect(201);
  const deliveries = await settled(earlier, 2);
  expect(deliveries.get(POISON)).toMatchObject({ status: 'failed', attempt_count: 3 });
  await eventually(() => disabledLogged(earlier), 'webhook.disabled logged', 5000);
  expect((await earlier.t.api.get(`/webhooks/${earlier.endpointId}`).expect(200)).body.enabled).toBe(false);
});
