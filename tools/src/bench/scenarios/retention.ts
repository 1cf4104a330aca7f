/**
 * Bounded storage (docs/api.md section 11): a constant event rate through the real API, past
 * several retention windows with time compressed, while the on-disk size of the partitioned
 * history tables (events, webhook deliveries, delivery attempts) is sampled. With retention the
 * size levels off after the first window while the events written keep growing.
 *
 * - Window: `EVENT_RETENTION_DAYS` = 0.0001 × `BENCH_DURATION` (0.0015 days ≈ 130 s at the default
 *   15 s; ≈ 26 s in the quick mode's 3 s), given to a real worker, whose retention job picks its
 *   partition width (a thirtieth of the window) and drops whole partitions past the window; a real
 *   dispatcher delivers meanwhile.
 * - Load: `BENCH_RETENTION_RATE` organisation writes per second through the API (one create, then
 *   nine updates spread over the tenant's organisations), each one event; an endpoint subscribed
 *   to every event makes one delivery and one attempt per event, sent to a local receiver.
 * - Samples: every 1/26 of a window (at least 1 s), pg_total_relation_size summed over the leaf
 *   partitions (pg_partition_tree) and the row count of each table.
 */
import { readFile } from 'node:fs/promises';
import { createPartitionsUntil, listPartitions, PARTITIONED_TABLES, type Knex } from '@dms/db';
import { log, type BenchContext } from '../context.js';
import { fmt, fmtMs, quantile, type Check, type ScenarioResult } from '../model.js';
import { paced } from '../pacer.js';
import { startReceiver } from '../receiver.js';
import { heapSpread, StorageSampler, summariseWindows, type WindowSummary } from '../storage.js';

const DAY = 86_400;
/** Retention windows the load runs for: the first fills, the others should all look alike. */
const WINDOWS = 4;
/** Organisations the updates rotate over (updates of one row serialise on its lock). */
const ORGANISATIONS = 10;
/** Requests outstanding at most (the API's pool has 10 connections). */
const MAX_IN_FLIGHT = 8;
/** A write answered 5xx is sent again with the same Idempotency-Key, up to this many times, this far apart (ms). */
const RETRIES = 40;
const RETRY_DELAY_MS = 250;
/** Causes of server errors counted in the services' logs (level 50 lines) during the load. */
const CAUSES = ['deadlock detected', 'no partition of relation'];
/** The plateau check: the last window's mean size within this fraction of the previous one's. */
const PLATEAU_TOLERANCE = 0.1;
/** The chart of the size series, beside the report. */
export const RETENTION_CHART_FILE = 'docs/benchmarks-retention.svg';

/** The compressed retention window for a run: 0.0001 days (8.64 s) per BENCH_DURATION second. */
export function retentionDays(durationSec: number): number {
  return 0.0001 * durationSec;
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/**
 * Ends today's migration-made partition now and drops the empty ones ahead of it, so the retention
 * job lays its runway at its own (compressed) width from now on. Without this the migration's
 * week of one-day partitions would hold every row of the run and nothing could be dropped: the job
 * only adds partitions after the last existing bound. Rows already written stay, in a partition
 * ending now, which the job drops once a window has passed it.
 * @returns the new upper bound of the existing partitions
 */
async function restartRunway(db: Knex): Promise<Date> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(`SELECT date_trunc('second', clock_timestamp()) + interval '1 second' AS cut`);
    const cut = rows[0].cut as Date;
    for (const { table } of PARTITIONED_TABLES) {
      for (const p of (await listPartitions(trx, table)).filter((x) => x.to > cut)) {
        await trx.raw(`ALTER TABLE ?? DETACH PARTITION ??`, [table, p.name]);
        // DDL takes no bind parameters; the bounds are ISO 8601 texts made here from dates.
        if (p.from < cut)
          await trx.raw(`ALTER TABLE ?? ATTACH PARTITION ?? FOR VALUES FROM ('${p.from.toISOString()}') TO ('${cut.toISOString()}')`, [table, p.name]);
        else await trx.raw(`DROP TABLE ??`, [p.name]);
      }
    }
    return cut;
  });
}

/** Waits until the retention job has created partitions past `cut` for every table; returns their width, s. */
async function waitForRunway(db: Knex, cut: Date): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lasts = await Promise.all(PARTITIONED_TABLES.map(async ({ table }) => (await listPartitions(db, table)).at(-1)!));
    if (lasts.every((p) => p.to > cut)) return (lasts[0]!.to.getTime() - lasts[0]!.from.getTime()) / 1000;
    if (Date.now() > deadline) throw new Error('the retention job created no partition within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Counts the error lines (pino level 50) of a log file after byte `from`: in all, and per cause. */
async function errorCauses(file: string, from: number): Promise<{ total: number; causes: Record<string, number>; jobRuns: number }> {
  const lines = (await readFile(file))
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.includes('"level":50') && l.includes('"err"'));
  // pino-http logs a failed request twice (the error, then the 500); the database error is the one with a code.
  const db = lines.filter((l) => l.includes('"code":"'));
  const jobRuns = lines.filter((l) => l.includes('"msg":"retention.failed"')).length;
  return { total: db.length, causes: Object.fromEntries(CAUSES.map((c) => [c, db.filter((l) => l.includes(c)).length])), jobRuns };
}

async function logSize(file: string): Promise<number> {
  return (await readFile(file)).length;
}

const describeCauses = (e: { total: number; causes: Record<string, number> }) =>
  `${fmt(e.total)}${
    e.total
      ? ` (${Object.entries(e.causes)
          .map(([c, n]) => `${c}: ${fmt(n)}`)
          .join(', ')})`
      : ''
  }`;

function windowTable(windows: WindowSummary[]): string {
  const [events, deliveries, attempts] = PARTITIONED_TABLES.map((t) => t.table).reverse() as [string, string, string];
  const rows = windows.map((w, i) => {
    const prev = windows[i - 1];
    return [
      `${w.index} (${fmt(w.from)}–${fmt(w.to)} s)`,
      fmt(w.writtenAtEnd),
      `${fmt(w.rate, 1)}/s`,
      mib(w.meanBytes),
      `${mib(w.minBytes)} – ${mib(w.maxBytes)}`,
      prev ? pct((w.meanBytes - prev.meanBytes) / prev.meanBytes) : '',
      `${fmt(w.meanRows[events]!)} / ${fmt(w.meanRows[deliveries]!)} / ${fmt(w.meanRows[attempts]!)}`,
      fmt(w.meanPartitions / PARTITIONED_TABLES.length),
    ];
  });
  const header = [
    'Window',
    'Events written (cumulative)',
    'Rate',
    'Size (mean)',
    'Size (min – max)',
    'vs previous',
    'Rows kept: events / deliveries / attempts (mean)',
    'Partitions per table',
  ];
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Runs the constant event rate past WINDOWS retention windows and reports the size per window. */
export async function retentionScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const days = retentionDays(settings.durationSec);
  const windowSec = days * DAY;
  const rate = settings.retentionRate;
  const sampleSec = Math.max(1, windowSec / 26);
  const receiver = await startReceiver();
  try {
    const tenant = await stack.newTenant('Bench Retention Tenant');
    const token = await stack.token(tenant);
    await stack.request(token, 'POST', '/webhooks', { url: receiver.url, enabled_events: ['*'] });
    const orgs: string[] = [];
    for (let i = 0; i < ORGANISATIONS; i++) orgs.push((await stack.request(token, 'POST', '/organisations', { name: `Retention Org ${i}` })).id as string);

    const cut = await restartRunway(stack.db);
    await stack.startService('dispatcher', 'Dispatcher');
    const worker = await stack.startService('worker', 'Worker (retention job)', { EVENT_RETENTION_DAYS: String(days) });
    const widthSec = await waitForRunway(stack.db, cut);
    log(`retention: window ${windowSec.toFixed(1)} s (EVENT_RETENTION_DAYS=${days}), partitions of ${widthSec} s; ${rate} events/s for ${WINDOWS} windows`);

    let written = 0;
    let retried = 0;
    const [apiLogFrom, workerLogFrom] = await Promise.all([logSize(stack.api.logFile), logSize(worker.logFile)]);
    const sampler = new StorageSampler(stack.db, async () => ({ written, received: await receiver.count() }));
    let nextLog = 0;
    sampler.start(sampleSec, (p) => {
      if (p.t < nextLog) return;
      nextLog += windowSec / 4;
      log(`retention: +${p.t.toFixed(0)} s  ${mib(p.bytes)}, ${fmt(p.rows)} rows kept, ${fmt(p.written)} events written, ${fmt(p.received)} delivered`);
    });
    const write = async (i: number, key: Record<string, string>) => {
      if (i % 10 === 0) orgs.push((await stack.request(token, 'POST', '/organisations', { name: `Retention Org ${orgs.length}` }, key)).id as string);
      else await stack.request(token, 'PATCH', `/organisations/${orgs[i % orgs.length]}`, { name: `Retention Org renamed ${i}` }, key);
    };
    const load = paced(rate, WINDOWS * windowSec, MAX_IN_FLIGHT, async (i) => {
      // As a client told "retry later" would: the same key, so a write that did commit is not made twice.
      const key = { 'Idempotency-Key': `bench-retention-${i}` };
      for (let attempt = 0; ; attempt++) {
        try {
          await write(i, key);
          break;
        } catch (err) {
          if (attempt === RETRIES || !/: 5\d\d /.test((err as Error).message)) throw err;
          retried++;
          await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
        }
      }
      written++;
    });
    await load.done;
    const points = await sampler.stop();
    const windows = summariseWindows(points, windowSec, WINDOWS);
    const [prev, last] = windows.slice(-2) as [WindowSummary, WindowSummary];
    const change = (last.meanBytes - prev.meanBytes) / prev.meanBytes;
    const achieved = load.ok / (WINDOWS * windowSec);
    // At steady state the events table holds a window of events, plus up to one partition width
    // and one check interval (half a width) not yet dropped.
    const eventsKept = last.meanRows.events!;
    const expectedKept = last.rate * windowSec;
    const lat = Float64Array.from(load.latencies);
    const spread = await heapSpread(stack.db).catch(() => ''); // a partition dropped meanwhile: no note
    const rowsChange = (last.meanRows.events! - prev.meanRows.events!) / prev.meanRows.events!;
    const apiErrors = await errorCauses(stack.api.logFile, apiLogFrom);
    const jobErrors = await errorCauses(worker.logFile, workerLogFrom);
    log(`retention: per window (size mean; events written):\n${windowTable(windows)}`);

    const checks: Check[] = [
      {
        what: `History tables' size, last retention window vs the one before (${fmt(rate)} events/s)`,
        value: mib(last.meanBytes),
        reference: `${mib(prev.meanBytes)}; events written ${fmt(prev.writtenAtEnd)} → ${fmt(last.writtenAtEnd)}`,
        ratio: pct(change),
        target: `within ±${PLATEAU_TOLERANCE * 100}% while writes go on`,
        met: Math.abs(change) <= PLATEAU_TOLERANCE && last.writtenAtEnd > prev.writtenAtEnd,
      },
      {
        what: 'Events kept, last retention window vs the one before',
        value: fmt(last.meanRows.events!),
        reference: fmt(prev.meanRows.events!),
        ratio: pct(rowsChange),
        target: `within ±${PLATEAU_TOLERANCE * 100}% while writes go on`,
        met: Math.abs(rowsChange) <= PLATEAU_TOLERANCE && last.writtenAtEnd > prev.writtenAtEnd,
      },
      {
        what: 'Events kept in the last window vs its rate × the retention window',
        value: fmt(eventsKept),
        reference: `${fmt(last.rate, 1)}/s × ${fmt(windowSec, 1)} s = ${fmt(expectedKept)}`,
        ratio: `${(eventsKept / expectedKept).toFixed(2)}×`,
        target: `≈ 1 + ${((1.5 * widthSec) / windowSec).toFixed(2)} at most (one partition + one check)`,
        met: eventsKept / expectedKept >= 0.95 && eventsKept / expectedKept <= 1 + (1.5 * widthSec) / windowSec + 0.05,
      },
      {
        what: 'API writes that failed (5xx) while the retention job ran, each sent again',
        value: fmt(retried),
        reference: `of ${fmt(load.ok + load.failed)} writes; database errors in the API log: ${describeCauses(apiErrors)}`,
        ratio: `${((retried / Math.max(1, load.ok + load.failed)) * 100).toFixed(1)}%`,
        target: '0 (retention must not fail writes)',
        met: retried === 0 && load.failed === 0,
      },
      {
        what: 'Webhook deliveries received during the retention run',
        value: fmt(last.receivedAtEnd),
        reference: `${fmt(load.ok + ORGANISATIONS)} events written`,
        ratio: `${(last.receivedAtEnd / (load.ok + ORGANISATIONS)).toFixed(3)}×`,
        target: '(context: attempts are written)',
        met: null,
      },
    ];
    const perTable = PARTITIONED_TABLES.map(({ table }) => `\`${table}\` ${mib(last.meanTableBytes[table]!)}`)
      .reverse()
      .join(', ');
    const notes = [
      `Method: a constant ${fmt(rate)} organisation writes per second through the API (\`POST /organisations\`, then nine \`PATCH\`es spread over ` +
        `the tenant's organisations; one event each), ${MAX_IN_FLIGHT} requests in flight at most, for ${WINDOWS} retention windows ` +
        `(${fmt(WINDOWS * windowSec)} s). An endpoint subscribed to every event gets one delivery and one attempt per event, sent by one ` +
        `dispatcher (production defaults) to a local receiver; a worker runs the retention job with \`EVENT_RETENTION_DAYS=${days}\` ` +
        `(a ${fmt(windowSec, 1)} s window: time compressed ${fmt((30 * DAY) / windowSec)}× against the 30-day default), which cut it into ` +
        `${fmt(widthSec)} s partitions, kept some ahead and dropped whole partitions once past the window. Every ${fmt(sampleSec, 1)} s the ` +
        'harness summed `pg_total_relation_size` (heap, TOAST, indexes) over the leaf partitions (`pg_partition_tree`) of `events`, ' +
        '`webhook_deliveries` and `webhook_delivery_attempts`, and counted their rows.',
      `Before the load, the partition that the migration made for today was ended at the start of the run and its empty successors ` +
        'dropped (the job adds partitions only after the last existing bound, so a week of one-day partitions would have taken every row); ' +
        'what earlier scenarios wrote stays in that partition until the job drops it one window later.',
      `Writes: ${fmt(load.ok)} succeeded (${fmt(achieved, 1)}/s against ${fmt(rate)}/s asked, ${fmt(load.skipped)} not started in time; ${fmt(retried)} answers were 5xx and sent again ` +
        `with the same \`Idempotency-Key\` after ${RETRY_DELAY_MS} ms, up to ${RETRIES} times), ${fmt(load.failed)} failed for good` +
        (load.errors.size ? ` (${[...load.errors].map(([m, n]) => `${n}× ${m}`).join('; ')})` : '') +
        `; latency p50 ${fmtMs(quantile(lat, 0.5))}, p99 ${fmtMs(quantile(lat, 0.99))}. ${points.length} samples` +
        (sampler.failed ? `, ${sampler.failed} skipped (a partition dropped while measured)` : '') +
        `. Last window by table: ${perTable}. Database errors logged: API ${describeCauses(apiErrors)}; worker ${describeCauses(jobErrors)}, of which ${fmt(jobErrors.jobRuns)} failed runs of the retention job (each rolled back whole).`,
      windowTable(windows),
      ...(spread ? [spread] : []),
      `![On-disk size of the history tables over ${WINDOWS} retention windows](${RETENTION_CHART_FILE})`,
    ];
    return {
      name: 'retention',
      title: 'Bounded storage (retention)',
      runs: [
        {
          key: 'retention.writes',
          label: `Organisation writes at a steady ${fmt(rate)}/s past ${WINDOWS} retention windows of ${fmt(windowSec)} s`,
          kind: 'service',
          rps: achieved,
          p50: quantile(lat, 0.5),
          p99: quantile(lat, 0.99),
          count: load.ok,
          durationSec: WINDOWS * windowSec,
          concurrency: MAX_IN_FLIGHT,
        },
      ],
      checks,
      notes,
      series: {
        file: RETENTION_CHART_FILE,
        title: `History tables on disk at ${fmt(rate)} events/s, retention window ${fmt(windowSec)} s`,
        windowSec,
        points: points.map(({ t, bytes, rows, written: w }) => ({ t, bytes, rows, written: w })),
      },
    };
  } finally {
    receiver.stop();
    await stack.stopExtra();
    // Scenarios after this one write without a retention job: a week of runway at the production width.
    await createPartitionsUntil(stack.db, new Date(), new Date(Date.now() + 7 * DAY * 1000), DAY);
  }
}
