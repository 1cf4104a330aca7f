/**
 * Webhook delivery: how fast one dispatcher (then two) empties a backlog into a local receiver,
 * and how long an event waits for its first delivery attempt when events arrive steadily (the
 * outbox's NOTIFY wakes the dispatcher).
 *
 * - Throughput: `BENCH_WEBHOOK_EVENTS` events committed at once (bulk SQL into the outbox table; its
 *   fan-out trigger creates one delivery each, and one NOTIFY wakes the dispatchers, as the API's
 *   outbox does), timed from commit until the receiver has them all (capped; the rest is canceled).
 * - Latency: events committed one per transaction (outbox INSERT + NOTIFY, as the API's
 *   `recordEvent`) at a fixed `BENCH_WEBHOOK_RATE` per second for the run's duration; each event's
 *   first attempt `started_at` (recorded by the dispatcher) minus its `created_at`, both from the
 *   database clock. (Through the API, per-tenant write contention would be measured instead.)
 * The receiver is a separate process answering 204; dispatchers run with their production defaults.
 */
import { tenantRows } from '@dms/domain/kernel';
import { webhookEndpointsResource } from '@dms/domain/webhooks';
import { cancelEndpointDeliveries } from '@dms/webhook-delivery';
import { log, type BenchContext } from '../context.js';
import { fmt, fmtMs, quantile, type Check, type LoadRun, type ScenarioResult } from '../model.js';
import { cpuTimeMs } from '../proc.js';
import { startReceiver, type Receiver } from '../receiver.js';
import type { BenchTenant, Stack } from '../stack.js';
import { WaitSampler } from '../waits.js';

/** Longest wait for a stream or for claimed attempts to be delivered, ms. */
const DRAIN_TIMEOUT_MS = 180_000;
/** The backlog is measured for at most twice the run duration (the rest is canceled). */
const DRAIN_CAP_SEC = (durationSec: number) => 2 * Math.max(10, durationSec);

async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU time so far (ms) of `pids`; a process that has gone counts 0. */
function cpuOf(pids: readonly number[]): Map<number, number> {
  return new Map(
    pids.map((pid) => [
      pid,
      (() => {
        try {
          return cpuTimeMs(pid);
        } catch {
          return 0;
        }
      })(),
    ]),
  );
}

/** PostgreSQL backends serving the benchmark database (the harness's own included). */
async function backendPids(stack: Stack): Promise<number[]> {
  const { rows } = await stack.db.raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return (rows as Array<{ pid: number }>).map((r) => r.pid);
}

/** CPU milliseconds per delivery of the dispatchers, the receiver and PostgreSQL during a drain. */
interface DrainCpu {
  dispatchers: number;
  receiver: number;
  postgres: number;
}

/**
 * Measures CPU time of the processes that deliver (from /proc), from `start()` to `stop(n)`, per
 * delivery: where a backlog's CPU goes, which two shared cores bound.
 */
class CpuMeter {
  #before = new Map<number, number>();
  constructor(
    private readonly stack: Stack,
    private readonly dispatcherPids: readonly number[],
    private readonly receiverPid: number,
  ) {}

  async start(): Promise<void> {
    this.#before = cpuOf([...this.dispatcherPids, this.receiverPid, ...(await backendPids(this.stack))]);
  }

  async stop(n: number): Promise<DrainCpu> {
    const after = cpuOf([...this.dispatcherPids, this.receiverPid, ...(await backendPids(this.stack))]);
    const used = (pids: Iterable<number>) => [...pids].reduce((sum, pid) => sum + (after.get(pid) ?? 0) - (this.#before.get(pid) ?? 0), 0) / Math.max(1, n);
    const own = new Set([...this.dispatcherPids, this.receiverPid]);
    return { dispatchers: used(this.dispatcherPids), receiver: used([this.receiverPid]), postgres: used([...after.keys()].filter((p) => !own.has(p))) };
  }
}

/** Commits `n` events of a real event's shape at once; returns the time of the commit (ms). */
async function commitBacklog(stack: Stack, tenant: BenchTenant, batch: string, n: number): Promise<number> {
  const sample = await stack.db('events').where({ tenant_id: tenant.tenantId, type: 'debt.created' }).first('type', 'api_version', 'data');
  await stack.db.transaction(async (trx) => {
    // Fanning out 20,000 events takes seconds of CPU; on a busy machine more than the pool's limit.
    await trx.raw('SET LOCAL statement_timeout = 0');
    await trx.raw(
      `INSERT INTO events (id, tenant_id, type, api_version, data)
       SELECT 'evt_' || translate(left(encode(sha256(convert_to(? || g, 'UTF8')), 'base64'), 24), '+/', 'Qz'), ?, ?, ?, ?::jsonb
       FROM generate_series(1, ?) AS g`,
      [`bench-evt-${batch}-`, tenant.tenantId, sample.type, sample.api_version, JSON.stringify(sample.data), n],
    );
    await trx.raw(`SELECT pg_notify('events_created', ?)`, [tenant.tenantId]);
  });
  return Date.now();
}

/**
 * Commits a backlog of `n` events and measures deliveries per second until the receiver has them
 * all, or for at most `capSec` seconds; what is left then is canceled so the next phase starts
 * from an empty queue.
 */
async function drainRate(
  stack: Stack,
  receiver: Receiver,
  tenant: BenchTenant,
  batch: string,
  n: number,
  capSec: number,
  meter: CpuMeter,
): Promise<{ rate: number; seconds: number; delivered: number; waits: string[]; cpu: DrainCpu }> {
  const before = await receiver.count();
  // Measured from the commit: the fan-out of the backlog itself is not delivery work.
  const committed = await commitBacklog(stack, tenant, batch, n);
  await meter.start();
  const sampler = new WaitSampler(stack.db).start();
  let delivered = 0;
  while (delivered < n && Date.now() - committed < capSec * 1000) {
    await new Promise((r) => setTimeout(r, 50));
    delivered = (await receiver.count()) - before;
  }
  const seconds = (Date.now() - committed) / 1000;
  const cpu = await meter.stop(delivered);
  const waits = await sampler.stop(5);
  if (delivered < n) {
    const endpoints: Array<{ id: string }> = await tenantRows(stack.db, webhookEndpointsResource, tenant.tenantId).select('webhook_endpoints.id');
    for (const { id } of endpoints) await cancelEndpointDeliveries(stack.db, id, 'bench: phase over');
    // A dispatcher holding one loses it (its result can no longer be recorded); wait until none is pending.
    await waitFor(
      'claimed deliveries',
      async () => Number((await stack.db('webhook_deliveries').where({ tenant_id: tenant.tenantId, status: 'pending' }).count({ n: '*' }).first())?.n) === 0,
    );
  }
  return { rate: delivered / seconds, seconds, delivered, waits, cpu };
}

/**
 * Commits one event per transaction at a steady `rate` per second for the run's duration, each with
 * the outbox's NOTIFY, from one connection (so the writer itself never waits on a lock), and
 * returns each event's first-attempt latency (ms): attempt 1 `started_at` minus event `created_at`.
 */
async function streamLatency(ctx: BenchContext, tenant: BenchTenant, batch: string, rate: number): Promise<{ latencies: Float64Array; waits: string[] }> {
  const { stack, settings } = ctx;
  const sample = await stack.db('events').where({ tenant_id: tenant.tenantId, type: 'debt.created' }).first('type', 'api_version', 'data');
  const total = Math.round(rate * settings.durationSec);
  const prefix = `bench-stream-${batch}-`;
  const sampler = new WaitSampler(stack.db).start();
  const started = Date.now();
  await stack.db.transaction(async () => {}); // a pooled connection is ready before the clock starts
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    await stack.db.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO events (id, tenant_id, type, api_version, data)
         VALUES ('evt_' || translate(left(encode(sha256(convert_to(?, 'UTF8')), 'base64'), 24), '+/', 'Qz'), ?, ?, ?, ?::jsonb)`,
        [`${prefix}${i}`, tenant.tenantId, sample.type, sample.api_version, JSON.stringify(sample.data)],
      );
      await trx.raw(`SELECT pg_notify('events_created', ?)`, [tenant.tenantId]);
    });
  }
  const firstAttempts = async () => {
    const { rows } = await stack.db.raw(
      `SELECT extract(epoch FROM a.started_at - e.created_at) * 1000 AS ms
       FROM generate_series(0, ? - 1) AS i
       JOIN events e ON e.id = 'evt_' || translate(left(encode(sha256(convert_to(? || i, 'UTF8')), 'base64'), 24), '+/', 'Qz')
       JOIN webhook_deliveries d ON d.event_id = e.id
       JOIN webhook_delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1`,
      [total, prefix],
    );
    return Float64Array.from((rows as Array<{ ms: string }>).map((r) => Number(r.ms)));
  };
  // Sampled while the events streamed in, not while this harness polls for the results.
  const waits = await sampler.stop(5);
  let latencies = new Float64Array();
  await waitFor('first attempts of the streamed events', async () => (latencies = await firstAttempts()).length === total);
  return { latencies, waits };
}

/** Runs delivery throughput and first-attempt latency with one, then two dispatchers. */
export async function webhooksScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const receiver = await startReceiver();
  const runs: LoadRun[] = [];
  const checks: Check[] = [];
  const notes: string[] = [];
  const rate = settings.webhookRate;
  try {
    const tenant = await stack.newTenant('Bench Webhook Tenant');
    const token = await stack.token(tenant);
    await stack.request(token, 'POST', '/webhooks', { url: receiver.url, enabled_events: ['*'] });
    // A real debt.created event, whose shape the backlog copies.
    const org = await stack.request(token, 'POST', '/organisations', { name: 'Benchmark Utilities' });
    const cus = await stack.request(token, 'POST', '/customers', { kind: 'individual', first_name: 'Ada', last_name: 'Lovelace' });
    await stack.request(token, 'POST', '/debts', {
      customer_id: cus.id,
      organisation_id: org.id,
      currency: 'GBP',
      breakdown: { principal: 125000, interest: 2500 },
    });

    for (const dispatchers of [1, 2]) {
      const label = dispatchers === 1 ? 'one dispatcher' : 'two dispatchers';
      const pids: number[] = [];
      for (let i = 0; i < dispatchers; i++) pids.push((await stack.startService('dispatcher', `Dispatcher ${i + 1} of ${dispatchers}`)).child.pid!);
      // Let the first deliveries (the setup events) go out, so the backlog is timed alone.
      await waitFor(
        'setup deliveries',
        async () => Number((await stack.db('webhook_deliveries').where({ tenant_id: tenant.tenantId, status: 'pending' }).count({ n: '*' }).first())?.n) === 0,
      );
      log(`webhooks: backlog of ${settings.webhookEvents} events, ${label}`);
      const drain = await drainRate(
        stack,
        receiver,
        tenant,
        `d${dispatchers}`,
        settings.webhookEvents,
        DRAIN_CAP_SEC(settings.durationSec),
        new CpuMeter(stack, pids, receiver.pid),
      );
      runs.push({
        key: `dispatch.${dispatchers}`,
        label: `Deliveries from a backlog of ${fmt(settings.webhookEvents)}, ${label}`,
        kind: 'service',
        rps: drain.rate,
        p50: NaN,
        p99: NaN,
        count: drain.delivered,
        durationSec: drain.seconds,
        concurrency: dispatchers,
        cpuMsPerOp: drain.cpu.dispatchers,
      });
      log(`webhooks: stream at ${rate}/s, ${label}`);
      const stream = await streamLatency(ctx, tenant, `s${dispatchers}`, rate);
      const p50 = quantile(stream.latencies, 0.5);
      const p99 = quantile(stream.latencies, 0.99);
      runs.push({
        key: `first-attempt.${dispatchers}`,
        label: `Event → first attempt (${rate} events/s), ${label}`,
        kind: 'service',
        rps: stream.latencies.length / settings.durationSec,
        p50,
        p99,
        count: stream.latencies.length,
        durationSec: settings.durationSec,
        concurrency: dispatchers,
      });
      const cpuTotal = drain.cpu.dispatchers + drain.cpu.receiver + drain.cpu.postgres;
      notes.push(
        `CPU per delivery during the backlog drain with ${label} (from /proc): dispatcher${dispatchers > 1 ? 's' : ''} ${fmtMs(drain.cpu.dispatchers)}, ` +
          `PostgreSQL (the harness's own samples included) ${fmtMs(drain.cpu.postgres)}, receiver ${fmtMs(drain.cpu.receiver)}: ${fmtMs(cpuTotal)} in all, ` +
          `so ${fmt(cpuTotal > 0 ? 1000 / cpuTotal : NaN)} deliveries/s per fully used core.`,
        `Database sessions during the backlog drain with ${label} (active sessions sampled from pg_stat_activity about 5 times a second):\n\n` +
          `\`\`\`\n${drain.waits.join('\n')}\n\`\`\``,
        `Database sessions while events streamed in at ${rate}/s with ${label}:\n\n\`\`\`\n${stream.waits.join('\n')}\n\`\`\``,
      );
      checks.push(
        {
          what: `Deliveries/s, ${label}`,
          value: `${fmt(drain.rate)}/s`,
          reference: `${fmt(drain.delivered)} of ${fmt(settings.webhookEvents)} in ${drain.seconds.toFixed(1)} s`,
          ratio: '',
          target: '≥ 3,000/s',
          met: drain.rate >= 3000,
        },
        {
          what: `Event → first attempt p50, ${label}`,
          value: fmtMs(p50),
          reference: `${fmt(stream.latencies.length)} events`,
          ratio: '',
          target: '< 50 ms',
          met: p50 < 50,
        },
        {
          what: `Event → first attempt p99, ${label}`,
          value: fmtMs(p99),
          reference: `${fmt(stream.latencies.length)} events`,
          ratio: '',
          target: '< 250 ms',
          met: p99 < 250,
        },
      );
      await stack.stopExtra();
    }
    notes.unshift(
      `Throughput: ${fmt(settings.webhookEvents)} events committed in one transaction (the outbox table's fan-out trigger makes one delivery each; ` +
        `one NOTIFY as the API sends), deliveries counted by the receiver from the commit until all arrived or for at most ${DRAIN_CAP_SEC(settings.durationSec)} s ` +
        '(the rest then canceled). Latency: events committed one per transaction ' +
        `(INSERT into the outbox + NOTIFY, as the API's \`recordEvent\` does) at a steady ${rate} per second for ${settings.durationSec} s from one ` +
        "connection; for each, the dispatcher's recorded start of attempt 1 minus the event's `created_at` (one database clock). The receiver is a " +
        'separate process that answers 204. Dispatchers run with their defaults (32 attempts in flight, 32 claimed per round trip).',
    );
  } finally {
    receiver.stop();
    await stack.stopExtra();
  }
  return { name: 'webhooks', title: 'Webhook delivery', runs, checks, notes };
}
