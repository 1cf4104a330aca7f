/**
 * The collection engine's send rate (docs/api.md section 13): a day's first steps of `BENCH_ENGINE_DEBTS`
 * prepared debts (default 2,000; the 1,000,000 is this scenario at full size) taken in,
 * rendered, stored and handed to the local SMTP server by one real worker, beside the ceiling from
 * the same run: nodemailer's own send rate to the same server (a pooled transport, as the engine's
 * provider uses, with the same number of connections), sending messages of the same size.
 *
 * - Data: one organisation with the default strategy, one customer with an email per debt,
 *   inserted through the domain functions (createCustomer, createDebt, moveDebt `ready`).
 * - Engine: a worker serving only the bench tenant, whose clock (`tenants.clock_offset_seconds`)
 *   is set to noon in Europe/London (the contact window), `WORKER_POLL_SECONDS` 0.2; measured from its start until every debt has a
 *   `sent` communication, so its start-up time counts against it. The mail server's count is
 *   polled every 200 ms; the database is asked only once the server has every message.
 * - Ceiling: `nodemailer.createTransport({pool: true, maxConnections})` sending as many messages.
 * - Memory: the worker's peak RSS is sampled during the run (flat when the engine keeps nothing per debt).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { startLocalMailServer } from '@dms/channels/standin';
import { communicationsResource, localTime } from '@dms/domain/communications';
import { tenantRows } from '@dms/domain/kernel';
import { createCustomer } from '@dms/domain/customers';
import { createDebt, moveDebt } from '@dms/domain/debts';
import { createOrganisationWithDetails } from '@dms/domain/organisation-contact-details';
import { testTenantOf } from '@dms/domain/tenants';
import { log, type BenchContext } from '../context.js';
import { fmt, type ScenarioResult } from '../model.js';
import { mapPool } from '../../seed/pool.js';

const SMTP_CONNECTIONS = 5;
/** Debts prepared between two ANALYZEs of the tables they fill. */
const ANALYZE_EVERY = 10_000;

/** Seconds to add to now for noon in London (the contact window of section 12). */
function noonOffset(): number {
  const { hour, minute } = localTime(new Date(), 'Europe/London');
  let minutes = (12 - hour) * 60 - minute;
  if (minutes < 0) minutes += 24 * 60;
  return minutes * 60;
}

/** Resident set size of a process, bytes (Linux /proc), or NaN. */
async function rss(pid: number | undefined): Promise<number> {
  if (!pid) return NaN;
  const { readFile } = await import('node:fs/promises');
  const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The engine's send rate beside nodemailer's own. */
export async function engineScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const n = Number(process.env.BENCH_ENGINE_DEBTS ?? 2000);
  const db = ctx.stack.db;
  const mail = await startLocalMailServer({ dataDir: await mkdtemp(join(tmpdir(), 'dms-bench-mail-')), replyDomain: 'reply.bench.test' });
  try {
    const live = await ctx.stack.newTenant('Engine Bench');
    // Only a test-mode tenant's clock may move (docs/api.md section 15): the engine works the bench tenant's test-mode pair.
    const tenantId = (await testTenantOf(db, live.tenantId)).id;
    const org = await createOrganisationWithDetails(db, tenantId, { name: 'Bench Energy' });
    // The tenant's own clock at noon in London (the contact window of section 12): production refuses a worker offset.
    await db('tenants').where({ id: tenantId }).update({ clock_offset_seconds: noonOffset() });
    /** Debt `i`: its customer with one email, the debt, moved to `prepared` (`ready`). */
    const prepareDebt = async (i: number): Promise<void> => {
      const customer = await createCustomer(db, tenantId, {
        kind: 'individual',
        first_name: 'Bench',
        last_name: `Customer ${i}`,
        contact_details: [{ type: 'email', value: `bench${i}@example.org`, primary: true }],
      });
      const debt = await createDebt(db, tenantId, {
        customer_id: customer.id,
        organisation_id: org.id,
        currency: 'GBP',
        breakdown: { principal: 10_000 + i },
      });
      await moveDebt(db, tenantId, debt.id, 'ready', { whodunnit: 'bench' });
    };
    log(`engine: preparing ${n} debts`);
    // This machine's PostgreSQL may run without autovacuum (it is off on the shared bench server):
    // the tables are analyzed every ANALYZE_EVERY debts and vacuumed at the end, as autovacuum would
    // do during and after such a load, so no plan is made on the statistics of an empty table (a
    // customer read by id through the tenant's list index took 35 ms at 59,000 customers).
    for (let from = 0; from < n; from += ANALYZE_EVERY) {
      await mapPool(Math.min(ANALYZE_EVERY, n - from), 8, (k) => prepareDebt(from + k));
      await db.raw('ANALYZE customers, customer_contact_details, debts');
    }
    await db.raw('VACUUM (ANALYZE) customers, customer_contact_details, debts, list_counters');

    // The ceiling: nodemailer alone, same server, same pool size, similar message.
    const transport = nodemailer.createTransport({ url: mail.smtpUrl, pool: true, maxConnections: SMTP_CONNECTIONS });
    const html = `<p>Dear Bench Customer, £100.00 is outstanding on your Bench Energy account. Please pay at http://localhost:3005/l/Xy7kP2mQ9vR4tW1zA8bC3dE6fG0hJ5nL2pS7uV9wY4a or reply to this email.</p>`;
    const t0 = performance.now();
    await mapPool(n, SMTP_CONNECTIONS * 2, (i) =>
      transport.sendMail({ from: 'Collections <collections@localhost>', to: `ceiling${i}@example.org`, subject: 'Your Bench Energy account', html }),
    );
    const ceilingSec = (performance.now() - t0) / 1000;
    transport.close();

    const worker = await ctx.stack.startService('worker', 'engine worker', {
      SMTP_URL: mail.smtpUrl,
      SMTP_MAX_CONNECTIONS: String(SMTP_CONNECTIONS),
      WORKER_TENANT_IDS: tenantId,
      WORKER_POLL_SECONDS: '0.2',
      WORKER_BATCH_SIZE: '1000',
    });
    // At least 20 debts a second, and never less than 30 minutes.
    const limitSec = Math.max(1800, n / 20);
    const t1 = performance.now();
    let sent = 0;
    let peakRss = 0;
    const rssSamples: number[] = [];
    // What the ceiling left on the server: the engine's messages come after these.
    const before = mail.count();
    let nextAnalyze = ANALYZE_EVERY;
    while (sent < n) {
      await new Promise((r) => setTimeout(r, 200));
      const received = mail.count() - before;
      // Autovacuum's part while the engine fills communications and moves debts (see the preparation).
      if (received >= nextAnalyze) {
        await db.raw('ANALYZE communications, debts');
        nextAnalyze = (Math.floor(received / ANALYZE_EVERY) + 1) * ANALYZE_EVERY;
      }
      // The database is asked only once the server has every message: counting `sent` rows while
      // the engine works would take the machine's CPU from it (a growing scan every 200 ms).
      if (received >= n) {
        const [row] = await tenantRows(db, communicationsResource, tenantId).where('communications.status', 'sent').count({ c: '*' });
        sent = Number(row!.c);
      }
      const r = await rss(worker.child.pid);
      rssSamples.push(r);
      peakRss = Math.max(peakRss, r);
      if ((performance.now() - t1) / 1000 > limitSec) throw new Error(`engine: only ${received} of ${n} received (${sent} recorded sent) after ${limitSec} s`);
    }
    const engineSec = (performance.now() - t1) / 1000;
    await ctx.stack.stopExtra();
    const engineRate = n / engineSec;
    const ceilingRate = n / ceilingSec;
    const midRss = rssSamples[Math.floor(rssSamples.length / 2)] ?? NaN;
    log(`engine: ${fmt(engineRate, 1)}/s against nodemailer's ${fmt(ceilingRate, 1)}/s`);
    return {
      name: 'engine',
      title: 'Collection engine: communications rendered, stored and handed to SMTP',
      runs: [
        {
          key: 'engine.send',
          label: `engine, ${n} prepared debts to contacted (1 worker)`,
          kind: 'service',
          rps: engineRate,
          p50: NaN,
          p99: NaN,
          count: n,
          durationSec: engineSec,
          concurrency: 1,
        },
        {
          key: 'engine.nodemailer',
          label: `nodemailer alone, pooled (${SMTP_CONNECTIONS} connections)`,
          kind: 'ceiling',
          rps: ceilingRate,
          p50: NaN,
          p99: NaN,
          count: n,
          durationSec: ceilingSec,
          concurrency: SMTP_CONNECTIONS,
        },
      ],
      checks: [
        {
          what: 'engine send rate',
          value: `${fmt(engineRate, 1)}/s`,
          reference: `${fmt(ceilingRate, 1)}/s`,
          ratio: fmt(engineRate / ceilingRate, 2),
          target: '≥ 0.5',
          met: engineRate / ceilingRate >= 0.5,
        },
        {
          what: 'engine worker memory (peak RSS against mid-run RSS)',
          value: `${fmt(peakRss / 2 ** 20, 0)} MiB`,
          reference: `${fmt(midRss / 2 ** 20, 0)} MiB`,
          ratio: fmt(peakRss / midRss, 2),
          target: '≤ 1.5 (flat)',
          met: peakRss / midRss <= 1.5,
        },
      ],
      notes: [
        `The engine works in batches of up to 100 debts per transaction (claimed in one statement that walks the claim's index and stops at the limit, reads loaded set-wise, moves, communications, bookkeeping and events written set-wise), in four lanes per worker: one transaction takes a batch in (\`analysing\`), one runs its first steps (render, store the \`queued\` communications), the hand-overs to SMTP follow that commit concurrently on the pooled transport while the lane decides its next batch, and one transaction records the batch's \`sent\` and \`contacted\`. Several workers share the work through SKIP LOCKED.`,
      ],
    };
  } finally {
    await mail.stop();
  }
}
