/**
 * File imports (docs/api.md section 16): a placement file of `BENCH_IMPORT_ROWS` rows (1,000,000
 * by default) uploaded to the real API and applied by `BENCH_IMPORT_WORKERS` real workers (each
 * row a customer with contact details, a debt with its line items, `prepared`, and their events;
 * `BENCH_IMPORT_BATCH` rows of a lane per transaction, set-wise (`IMPORT_ROWS_PER_TRANSACTION`, 200 when unset;
 * the worker's default is one row per transaction)), beside the ceiling of the same file loaded by `COPY` (psql
 * `\copy`) into an unlogged scratch table of text columns in the same run; the workers' resident
 * memory sampled while they work (flat: rows are read from the database a batch at a time); and
 * the API's `GET /debts` p50 while the import runs against its p50 before it.
 */
import { execFile } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../processes.js';
import { PLACEMENT_HEADER, writeBenchFile } from '../../placement-rows.js';
import { log, type BenchContext } from '../context.js';
import { fmt, fmtMs, quantile, type Check, type ScenarioResult } from '../model.js';
import { memoryOf } from '../proc.js';

const run = promisify(execFile);

/** Writes the file (deterministic, streamed: never whole in memory); returns its path. */
async function writeFile(rows: number): Promise<string> {
  const dir = join(REPO_ROOT, '.data', 'bench');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `placement-${rows}.csv`);
  await writeBenchFile(path, rows);
  return path;
}

/** Loads the file with psql `\copy` into an unlogged scratch table; returns rows per second, or undefined without psql. */
async function copyCeiling(databaseUrl: string, path: string, rows: number): Promise<number | undefined> {
  const sql = (command: string) => run('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', command]);
  try {
    await sql(`DROP TABLE IF EXISTS bench_import_scratch; CREATE UNLOGGED TABLE bench_import_scratch (${PLACEMENT_HEADER.map((h) => `${h} text`).join(', ')})`);
  } catch (err) {
    log(`imports: no COPY ceiling (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
  const started = process.hrtime.bigint();
  await sql(`\\copy bench_import_scratch FROM '${path}' WITH (FORMAT csv, HEADER true)`);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await sql('DROP TABLE bench_import_scratch');
  return rows / seconds;
}

/** p50 of `n` sequential `GET /debts?limit=10`, ms. */
async function listP50(url: string, token: string, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}/debts?limit=10`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  return quantile(times, 0.5);
}

/** Runs the scenario (see the module comment). */
export async function importsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const rows = settings.importRows;
  log(`imports: writing a placement file of ${fmt(rows)} rows`);
  const path = await writeFile(rows);
  const copyRate = await copyCeiling(settings.databaseUrl, path, rows);
  const tenant = await stack.newTenant('Bench Imports Tenant');
  const token = await stack.token(tenant);
  const org = (await stack.request(token, 'POST', '/organisations', { name: 'Bench Imports Ltd' })).id as string;
  const quietP50 = await listP50(stack.api.url, token, 50);
  const workers = await Promise.all(
    Array.from({ length: settings.importWorkers }, (_, i) =>
      stack.startService('worker', `Worker ${i + 1} (imports)`, {
        WORKER_TENANT_IDS: tenant.tenantId,
        WORKER_POLL_SECONDS: '0.2',
        // Imports only: the collection engine would start working the placed debts beside them.
        ENGINE_ENABLED: 'false',
        ...(settings.importBatch ? { IMPORT_BATCH_SIZE: String(settings.importBatch) } : {}),
        // The set-wise batch: the claimed rows of a lane per transaction (the worker's default is one row each).
        IMPORT_ROWS_PER_TRANSACTION: String(settings.importBatch || 200),
      }),
    ),
  );
  const loadBefore = loadavg()[0]!;
  const started = process.hrtime.bigint();
  const form = new FormData();
  form.append('type', 'placement');
  form.append('organisation_id', org);
  form.append('file', await openAsBlob(path), 'placement.csv');
  const res = await fetch(`${stack.api.url}/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const created = (await res.json()) as { id: string; status: string };
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(created)}`);
  const uploadSec = Number(process.hrtime.bigint() - started) / 1e9;
  const rss: Array<{ processed: number; mib: number }> = [];
  let busyP50 = NaN;
  let current = created as { status: string; rows_processed?: number };
  while (current.status === 'queued' || current.status === 'processing') {
    await new Promise((r) => setTimeout(r, 1000));
    current = (await stack.request(token, 'GET', `/imports/${created.id}`)) as typeof current;
    const mib = Math.max(...workers.map((w) => memoryOf(w.child.pid!).currentMiB));
    rss.push({ processed: current.rows_processed ?? 0, mib });
    if (Number.isNaN(busyP50) && (current.rows_processed ?? 0) > 0) busyP50 = await listP50(stack.api.url, token, 50);
  }
  const totalSec = Number(process.hrtime.bigint() - started) / 1e9;
  const loadAfter = loadavg()[0]!;
  const final = current as { status: string; rows_succeeded: number; rows_failed: number };
  const rate = rows / totalSec;
  const peaks = workers.map((w) => memoryOf(w.child.pid!).peakMiB);
  const early = rss.find((p) => p.processed >= rows / 4)?.mib ?? NaN;
  const late = rss.at(-1)?.mib ?? NaN;
  log(
    `imports: ${fmt(rows)} rows in ${fmt(totalSec, 1)} s (${fmt(rate, 1)} rows/s); COPY ${copyRate ? fmt(copyRate) : '–'} rows/s; worker peak RSS ${fmt(Math.max(...peaks))} MiB`,
  );
  const checks: Check[] = [
    {
      what: `Placement rows applied per second (${settings.importWorkers} workers, upload included)`,
      value: `${fmt(rate, 1)}/s`,
      reference: copyRate ? `COPY into an unlogged table: ${fmt(copyRate)}/s` : 'COPY not measured (no psql)',
      ratio: copyRate ? `${fmt(rate / copyRate, 4)}x` : '–',
      target: '>= 0.25x',
      met: copyRate ? rate / copyRate >= 0.25 : null,
    },
    {
      what: 'Worker resident memory: at a quarter of the rows vs at the end',
      value: `${fmt(late)} MiB`,
      reference: `${fmt(early)} MiB`,
      ratio: Number.isFinite(early) ? `${fmt(late / early, 2)}x` : '–',
      target: 'flat (<= 1.2x)',
      met: Number.isFinite(early) ? late / early <= 1.2 : null,
    },
    {
      what: 'GET /debts p50 while the import runs',
      value: fmtMs(busyP50),
      reference: `${fmtMs(quietP50)} before it`,
      ratio: `${fmt(busyP50 / quietP50, 2)}x`,
      target: '<= 2x',
      met: Number.isFinite(busyP50) ? busyP50 / quietP50 <= 2 : null,
    },
  ];
  await stack.stopExtra();
  return {
    name: 'imports',
    title: 'File imports: a placement file applied by workers beside COPY',
    runs: [],
    checks,
    notes: [
      `${fmt(rows)} rows, status ${final.status} (${fmt(final.rows_succeeded)} applied, ${fmt(final.rows_failed)} refused); upload and storage of the rows ${fmt(uploadSec, 1)} s of the ${fmt(totalSec, 1)} s. ` +
        `Each row makes a customer, its email, mobile and address, a debt with its line items and its move to prepared, with their events (IMPORT_BATCH_SIZE and IMPORT_ROWS_PER_TRANSACTION ${fmt(settings.importBatch || 200)}: that many rows of a lane per transaction, set-wise; the worker's default is one row per transaction): ` +
        `a COPY of the same text into one unlogged table is the ceiling of moving the bytes, not of the work a row does. Worker peak RSS: ${peaks.map((p) => `${fmt(p)} MiB`).join(', ')}. ` +
        `1-minute load average ${fmt(loadBefore, 2)} when the upload began, ${fmt(loadAfter, 2)} when the import completed (2 cores shared by every process of the run).`,
    ],
  };
}
