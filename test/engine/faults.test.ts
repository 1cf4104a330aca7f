/**
 * Every message once and on time (docs/api.md section 13, "What happens to a message at each
 * failure"): the collection engine with our own SMTP server as the ground truth (fault-smtp.ts),
 * two workers, `FAULTS_DEBTS` prepared debts (default 300) of customers with an email address, the
 * default strategy, and meanwhile:
 * - `FAULTS_KILLS` SIGKILLs of a worker (default 4), each replaced by a new one;
 * - the database gone for 5 s: the workers reach PostgreSQL through a proxy that drops every
 *   connection and refuses new ones (test/support/db-proxy.ts), which is what a crashed server
 *   looks like to them;
 * - the mail provider refusing for 10 s: 5 s answering `421`, then 5 s closing connections
 *   before the greeting.
 * Then, counted at the SMTP server per debt: no message twice; every debt's first message is the
 * strategy's first step; missing messages at most the hand-overs in flight at the kills (send
 * concurrency × kills); no debt `contact_failed`. The figures are printed one per line;
 * `npm run faults` runs the same at 1,500 debts and 12 kills.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { startDbProxy, type DbProxy } from '../support/db-proxy.js';
import { eventually } from '../support/eventually.js';
import { faultSmtp, type FaultSmtp } from './fault-smtp.js';
import { customerWith, engineRig, offsetToLondon, preparedDebt, type EngineRig } from './support.js';

const DEBTS = Number(process.env.FAULTS_DEBTS ?? 300);
const KILLS = Number(process.env.FAULTS_KILLS ?? 4);
/** SMTP connections per worker; the send concurrency is twice that (services/worker/src/engine/setup.ts). */
const SMTP_CONNECTIONS = 2;
const SEND_CONCURRENCY = SMTP_CONNECTIONS * 2;
/** Milliseconds the SMTP server takes per message: the two workers' hand-overs span about 40 s, so every fault meets messages in flight. */
const SMTP_DELAY_MS = Math.round((2 * SEND_CONCURRENCY * 40_000) / DEBTS);

let rig: EngineRig;
let smtp: FaultSmtp;
let proxy: DbProxy;

beforeAll(async () => {
  rig = await engineRig();
  smtp = await faultSmtp(SMTP_DELAY_MS);
  proxy = await startDbProxy(SERVICE_ENV.DATABASE_URL!);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
  await smtp?.close();
  await proxy?.close();
  await closeHarness();
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
  `${DEBTS} debts, 2 workers, ${KILLS} kills, the database gone for 5 s, the provider refusing for 10 s: every message once, the first step first`,
  async () => {
    const t = await signedInTenant();
    const org = (await t.api.post('/organisations', { name: 'Faults Ltd' }).expect(201)).body.id as string;
    const debts = await inParallel(Array.from({ length: DEBTS }), 8, async (_, i) =>
      preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: `fault${i}@example.org`, primary: true }])),
    );
    const env = {
      SMTP_URL: smtp.url,
      SMTP_MAX_CONNECTIONS: String(SMTP_CONNECTIONS),
      DATABASE_URL: proxy.via(SERVICE_ENV.DATABASE_URL!),
      ENGINE_RECONCILE_AFTER_SECONDS: '5',
      ENGINE_HAND_OVER_LEASE_SECONDS: '5',
      ENGINE_RETRY_BASE_SECONDS: '1',
      ENGINE_RETRY_MAX_SECONDS: '3',
      WORKER_BATCH_SIZE: '50',
    };
    const noon = offsetToLondon(12);
    const start = () => rig.worker([t.tenant.tenantId], noon, env);
    const workers: RunningService[] = await Promise.all([start(), start()]);

    // The faults, while the debts are being worked.
    for (let k = 0; k < KILLS; k++) {
      await sleep(700);
      const victim = workers.shift()!;
      await victim.stop('SIGKILL');
      workers.push(await start());
      if (k === Math.floor(KILLS / 2)) {
        proxy.cut();
        await sleep(5_000);
        proxy.restore();
      }
    }
    smtp.mode = 'defer';
    await sleep(5_000);
    smtp.mode = 'close';
    await sleep(5_000);
    smtp.mode = 'ok';

    // Settled: no communication of the tenant is still queued (the lost ones reconciled).
    const queued = async () => Number((await testDb()('communications').where({ tenant_id: t.tenant.tenantId, status: 'queued' }).count({ n: '*' }))[0]!.n);
    const started = async () => Number((await testDb()('communications').where({ tenant_id: t.tenant.tenantId }).count({ n: '*' }))[0]!.n);
    await eventually(async () => (await started()) >= DEBTS && (await queued()) === 0, 'every debt has its first communication settled', 240_000);

    const coms = (await testDb()('communications').where({ tenant_id: t.tenant.tenantId, direction: 'outbound' })) as Array<{
      id: string;
      debt_id: string;
      step: number;
      status: string;
    }>;
    const byDebt = new Map<string, typeof coms>();
    for (const c of coms) byDebt.set(c.debt_id, [...(byDebt.get(c.debt_id) ?? []), c]);
    const got = (c: { id: string }) => [...smtp.received.entries()].filter(([id]) => id.startsWith(`${c.id}@`)).reduce((n, [, k]) => n + k, 0);
    let received = 0;
    let duplicates = 0;
    let missing = 0;
    let deliveredButFailed = 0;
    let wrongFirst = 0;
    for (const id of debts) {
      const mine = (byDebt.get(id) ?? []).sort((a, b) => a.step - b.step);
      const counts = mine.map(got);
      received += counts.reduce((a, b) => a + b, 0);
      duplicates += counts.reduce((a, b) => a + Math.max(0, b - 1), 0);
      if (!counts.some((n) => n > 0)) missing += 1;
      deliveredButFailed += mine.filter((c, i) => c.status === 'failed' && counts[i]! > 0).length;
      const first = mine.find((_, i) => counts[i]! > 0);
      if (first && first.step !== 0) wrongFirst += 1;
    }
    const contactFailed = Number((await testDb()('debts').whereIn('id', debts).where({ status: 'contact_failed' }).count({ n: '*' }))[0]!.n);
    const figures = {
      debts: DEBTS,
      kills: KILLS,
      received,
      missing,
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
  },
  600_000 + DEBTS * 600,
);
