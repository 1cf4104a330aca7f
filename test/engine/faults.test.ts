/**
 * Every message once and on time (docs/api.md section 13, "What happens to a message at each
 * failure"): the collection engine with our own SMTP server as the ground truth (fault-smtp.ts),
 * two workers, `FAULTS_DEBTS` prepared debts (default 300) of customers with an email address, the
 * default strategy, and meanwhile:
 * - `FAULTS_KILLS` SIGKILLs of a worker (default 4), each replaced by a new one;
 * - one PostgreSQL crash: the whole system runs on a server of this file's own
 *   (crashable-postgres.ts, own-system.ts), whose every process is SIGKILLed, left down 5 s and
 *   started again through crash recovery; no kill comes within 3 s of it, so that a message lost
 *   to it is told from those lost to the kills (by the time it was marked handed over);
 * - the mail provider refusing for 10 s: 5 s answering `421`, then 5 s closing connections
 *   before the greeting.
 * Then, counted at the SMTP server per debt: no message twice; every debt's first message is the
 * strategy's first step; missing messages at most the hand-overs in flight at the kills (send
 * concurrency × kills), and none of them marked while the database crashed; outcomes known while
 * it was down written once it was back (`sent`); no debt `contact_failed`. The figures are
 * printed one per line; `npm run faults` runs the same at 1,500 debts and 12 kills.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startService, type RunningService } from '@dms/tools/processes';
import { startCrashablePostgres, type CrashablePostgres } from '../support/crashable-postgres.js';
import { eventually } from '../support/eventually.js';
import { startOwnSystem, type OwnSystem } from '../support/own-system.js';
import { faultSmtp, type FaultSmtp } from './fault-smtp.js';
import { REPLY_DOMAIN, customerWith, offsetToLondon, preparedDebt } from './support.js';

const DEBTS = Number(process.env.FAULTS_DEBTS ?? 300);
const KILLS = Number(process.env.FAULTS_KILLS ?? 4);
/** SMTP connections per worker; the send concurrency is twice that (services/worker/src/engine/setup.ts). */
const SMTP_CONNECTIONS = 2;
const SEND_CONCURRENCY = SMTP_CONNECTIONS * 2;
/** Milliseconds the SMTP server takes per message: the two workers' hand-overs span about 40 s, so every fault meets messages in flight. */
const SMTP_DELAY_MS = Math.round((2 * SEND_CONCURRENCY * 40_000) / DEBTS);

/** Seconds the crashed database stays down, and the kill-free seconds on either side of its crash. */
const DB_DOWN_MS = 5_000;
const CRASH_GAP_MS = 3_000;

let pg: CrashablePostgres;
let sys: OwnSystem;
let smtp: FaultSmtp;
const workers: RunningService[] = [];

beforeAll(async () => {
  smtp = await faultSmtp(SMTP_DELAY_MS);
  pg = await startCrashablePostgres('dms_faults');
  sys = await startOwnSystem(pg.url);
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await sys?.stop();
  await pg?.stop();
  await smtp?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `make` over `items` at most `width` at once. */
async function inParallel<T, R>(items: readonly T[], width: number, make: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await make(items[i]!, i);
    }),
  );
  return out;
}

test(
  `${DEBTS} debts, 2 workers, ${KILLS} kills, a PostgreSQL crash, the provider refusing for 10 s: every message once, the first step first`,
  async () => {
    const t = await sys.signedInTenant();
    const org = (await t.api.post('/organisations', { name: 'Faults Ltd' }).expect(201)).body.id as string;
    const debts = await inParallel(Array.from({ length: DEBTS }), 8, async (_, i) =>
      preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: `fault${i}@example.org`, primary: true }])),
    );
    const noon = offsetToLondon(12);
    const env = {
      ...sys.env,
      MAIL_FROM: 'Collections <collections@engine.test>',
      REPLY_DOMAIN,
      SMTP_URL: smtp.url,
      SMTP_MAX_CONNECTIONS: String(SMTP_CONNECTIONS),
      WORKER_TENANT_IDS: t.tenantId,
      WORKER_POLL_SECONDS: '0.2',
      WORKER_CLOCK_OFFSET_SECONDS: String(noon),
      ENGINE_RECONCILE_AFTER_SECONDS: '5',
      ENGINE_HAND_OVER_LEASE_SECONDS: '5',
      ENGINE_RETRY_BASE_SECONDS: '1',
      ENGINE_RETRY_MAX_SECONDS: '3',
      WORKER_BATCH_SIZE: '50',
    };
    const start = async () => {
      const w = await startService('worker', env);
      workers.push(w);
      return w;
    };
    await Promise.all([start(), start()]);
    const serving = [...workers];

    // The faults, while the debts are being worked.
    let crashedAt = 0;
    let backAt = 0;
    for (let k = 0; k < KILLS; k++) {
      await sleep(700);
      const victim = serving.shift()!;
      await victim.stop('SIGKILL');
      serving.push(await start());
      if (k === Math.floor(KILLS / 2)) {
        await sleep(CRASH_GAP_MS);
        crashedAt = Date.now();
        await pg.crash();
        await sleep(DB_DOWN_MS);
        await pg.restart();
        backAt = Date.now();
        await sleep(CRASH_GAP_MS);
      }
    }
    expect(pg.log.join('\n')).toMatch(/database system was interrupted|redo starts|not properly shut down/);
    smtp.mode = 'defer';
    await sleep(5_000);
    smtp.mode = 'close';
    await sleep(5_000);
    smtp.mode = 'ok';

    // Settled: no communication of the tenant is still queued (the lost ones reconciled).
    const queued = async () => Number((await sys.db('communications').where({ tenant_id: t.tenantId, status: 'queued' }).count({ n: '*' }))[0]!.n);
    const started = async () => Number((await sys.db('communications').where({ tenant_id: t.tenantId }).count({ n: '*' }))[0]!.n);
    await eventually(async () => (await started()) >= DEBTS && (await queued()) === 0, 'every debt has its first communication settled', 240_000);

    const coms = (await sys.db('communications').where({ tenant_id: t.tenantId, direction: 'outbound' })) as Array<{
      id: string;
      debt_id: string;
      step: number;
      status: string;
      first_attempt_at: Date | string | null;
      updated_at: Date | string;
    }>;
    /** Whether the communication was first marked handed over while the database crashed (wall clock: the engine's less the offset). */
    const markedAtCrash = (c: (typeof coms)[number]) => {
      if (!c.first_attempt_at) return false;
      const at = new Date(c.first_attempt_at).getTime() - noon * 1000;
      return at >= crashedAt - 1_000 && at <= backAt;
    };
    const byDebt = new Map<string, typeof coms>();
    for (const c of coms) byDebt.set(c.debt_id, [...(byDebt.get(c.debt_id) ?? []), c]);
    const got = (c: { id: string }) => [...smtp.received.entries()].filter(([id]) => id.startsWith(`${c.id}@`)).reduce((n, [, k]) => n + k, 0);
    let received = 0;
    let duplicates = 0;
    let missing = 0;
    let missingAtCrash = 0;
    let deliveredButFailed = 0;
    let wrongFirst = 0;
    for (const id of debts) {
      const mine = (byDebt.get(id) ?? []).sort((a, b) => a.step - b.step);
      const counts = mine.map(got);
      received += counts.reduce((a, b) => a + b, 0);
      duplicates += counts.reduce((a, b) => a + Math.max(0, b - 1), 0);
      if (!counts.some((n) => n > 0)) {
        missing += 1;
        if (mine.some(markedAtCrash)) missingAtCrash += 1;
      }
      deliveredButFailed += mine.filter((c, i) => c.status === 'failed' && counts[i]! > 0).length;
      const first = mine.find((_, i) => counts[i]! > 0);
      if (first && first.step !== 0) wrongFirst += 1;
    }
    // Outcomes known while the database was away, written once it was back: marked before the crash, `sent` after it.
    const keptThroughCrash = coms.filter(
      (c) =>
        c.status === 'sent' &&
        c.first_attempt_at &&
        new Date(c.first_attempt_at).getTime() - noon * 1000 < crashedAt &&
        new Date(c.updated_at).getTime() >= backAt,
    ).length;
    const contactFailed = Number((await sys.db('debts').whereIn('id', debts).where({ status: 'contact_failed' }).count({ n: '*' }))[0]!.n);
    const figures = {
      debts: DEBTS,
      kills: KILLS,
      received,
      missing,
      missing_at_crash: missingAtCrash,
      kept_through_crash: keptThroughCrash,
      duplicates,
      delivered_but_failed: deliveredButFailed,
      wrong_first: wrongFirst,
      contact_failed: contactFailed,
    };
    process.stdout.write(
      `${Object.entries(figures)
        .map(([k, v]) => `${k} ${v}`)
        .join('\n')}\n`,
    );

    expect(duplicates).toBe(0);
    expect(wrongFirst).toBe(0);
    expect(contactFailed).toBe(0);
    expect(missing).toBeLessThanOrEqual(SEND_CONCURRENCY * KILLS);
    expect(missingAtCrash).toBe(0);
    expect(keptThroughCrash).toBeGreaterThan(0);
  },
  600_000 + DEBTS * 600,
);
