/**
 * The dispatcher's LISTEN connection after it is lost (a failover, `pg_terminate_backend`): it
 * listens again on its own and re-reads the queue at once, so an event committed while nobody
 * listened (its NOTIFY lost) is delivered without waiting for the poll. The dispatcher here polls
 * only every 60 s, so a prompt delivery can come only from a notification or from that re-read.
 * Its pool goes to the database directly and its LISTEN through a proxy (`DATABASE_LISTEN_URL`,
 * as behind a transaction-mode pooler), so cutting the proxy loses only the listener.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { listenWithReconnect } from '@dms/db';
import type { RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { startDbProxy, type DbProxy } from '../support/db-proxy.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';

/** Well under the dispatcher's 60 s poll: only LISTEN or the re-read after reconnecting is this fast. */
const PROMPT_MS = 8_000;

let proxy: DbProxy;
let receiver: Receiver;
let dispatcher: RunningService;
let t: Awaited<ReturnType<typeof signedInTenant>>;
let parties: { organisationId: string; customerId: string };

beforeAll(async () => {
  proxy = await startDbProxy(SERVICE_ENV.DATABASE_URL!);
  t = await signedInTenant();
  parties = await seedParties(t.api);
  receiver = await startReceiver();
  const endpoint = await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['debt.created'] }).expect(201);
  receiver.setSigningSecret(endpoint.body.signing_secret);
  dispatcher = await startDispatcher([t.tenant.tenantId], { DISPATCH_POLL_SECONDS: '60', DATABASE_LISTEN_URL: proxy.via(SERVICE_ENV.DATABASE_URL!) });
  // The dispatcher's first queue check is done and it listens (the re-read after connecting came).
  await eventually(() => readFileSync(dispatcher.logFile, 'utf8').includes('"dispatching"'), 'the dispatcher runs', 10_000);
  await eventually(async () => (await listeners()) === 1, 'the dispatcher listens', 10_000);
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
  await proxy?.close();
  await closeHarness();
});

/** This dispatcher's LISTEN sessions: those that came through the proxy (other files run dispatchers too). */
async function listeners(): Promise<number> {
  const { rows } = await testDb().raw(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'dms-dispatcher-listen' AND query LIKE 'LISTEN%' AND client_port = ANY(?)",
    [proxy.serverSidePorts()],
  );
  return rows[0].n as number;
}

const lostLines = () => readFileSync(dispatcher.logFile, 'utf8').split('listener connection lost').length - 1;

async function createDebt(): Promise<string> {
  const res = await t.api.post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP' }).expect(201);
  return res.body.id as string;
}

/**
 * Waits until this tenant has no delivery left to finish and the dispatcher had time to go back to
 * sleep: a delivery's slot frees (and wakes the loop for one more queue check) only after its
 * result is written, which on a loaded machine can land after the next test's debt is committed.
 */
async function dispatcherIdle(): Promise<void> {
  await eventually(
    async () => (await testDb()('webhook_deliveries').where({ tenant_id: t.tenant.tenantId, status: 'pending' }).count({ n: '*' }))[0]!.n === 0,
    'every delivery recorded',
    10_000,
  );
  await new Promise((r) => setTimeout(r, 1_000));
}

const delivered = (debtId: string) => receiver.received.some((r) => r.event.type === 'debt.created' && r.event.data?.object?.id === debtId && r.verified);

test('a notification wakes the dispatcher: the delivery comes well before the 60 s poll', async () => {
  const id = await createDebt();
  await eventually(() => delivered(id), 'delivered on NOTIFY', PROMPT_MS);
});

test('an event committed while the listener is cut off is delivered as soon as it listens again', async () => {
  await dispatcherIdle();
  const lost = lostLines();
  proxy.cut();
  let id: string;
  try {
    await eventually(() => lostLines() > lost, 'the dispatcher notices the lost connection', 5_000);
    id = await createDebt();
    await new Promise((r) => setTimeout(r, 2_000));
    expect(delivered(id)).toBe(false);
  } finally {
    proxy.restore();
  }
  await eventually(() => delivered(id!), 'delivered after listening again', PROMPT_MS);
  await eventually(async () => (await listeners()) === 1, 'the dispatcher listens again', 10_000);
});

test('after pg_terminate_backend of its LISTEN session the dispatcher listens again and is woken by the next notification', async () => {
  await eventually(async () => (await listeners()) === 1, 'the dispatcher listens', 10_000);
  await dispatcherIdle();
  const lost = lostLines();
  await testDb().raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dms-dispatcher-listen' AND client_port = ANY(?)", [
    proxy.serverSidePorts(),
  ]);
  await eventually(() => lostLines() > lost, 'the dispatcher notices', 5_000);
  await eventually(async () => (await listeners()) === 1, 'the dispatcher listens again', 10_000);
  const id = await createDebt();
  await eventually(() => delivered(id), 'delivered on NOTIFY after re-subscribing', PROMPT_MS);
  expect(dispatcher.child.exitCode).toBeNull();
});

test('a LISTEN connection that stops answering without an error is replaced after the heartbeat (libs/db listenWithReconnect)', async () => {
  const silent = await startDbProxy(SERVICE_ENV.DATABASE_URL!);
  const seen: string[] = [];
  const listener = listenWithReconnect({
    databaseUrl: silent.via(SERVICE_ENV.DATABASE_URL!),
    channel: 'dms_heartbeat_test',
    log: { warn: (_o, msg) => void seen.push(msg) },
    onNotify: (payload) => void seen.push(payload === undefined ? 'listening' : `notified ${payload}`),
    onLost: () => void seen.push('lost'),
    retryMs: 200,
    heartbeatMs: 500,
  });
  try {
    await eventually(() => seen.includes('listening'), 'listening', 5_000);
    silent.silence();
    await eventually(() => seen.includes('lost'), 'the silent connection retired', 5_000);
    expect(seen).toContain('listener connection lost: no answer to the heartbeat');
    // Reconnecting meanwhile fails too (the connect times out) and is retried until the network is back.
    await new Promise((r) => setTimeout(r, 1_500));
    silent.restore();
    await eventually(() => seen.filter((e) => e === 'listening').length >= 2, 'listening again', 10_000);
    await testDb().raw(`SELECT pg_notify('dms_heartbeat_test', 'after')`);
    await eventually(() => seen.includes('notified after'), 'a notification after listening again', 5_000);
  } finally {
    await listener.close();
    await silent.close();
  }
});
