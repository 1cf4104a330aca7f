/**
 * `npm run ha:verify` (after scripts/ha-verify.sh installed the Debian packages): the failover proof
 * of deploy/README.md, "High availability". Per run: a fresh three-node cluster (cluster.mjs) in
 * network namespaces (network.mjs), the four services on it behind PgBouncer, and a steady load
 * (load.mjs) while the primary's PostgreSQL and Patroni are SIGKILLed, then the next primary is cut
 * off the network, then the cluster fails back to the first primary by a switchover. Then the
 * audit (checks.mjs) and the figures. Exit 1 when any check fails.
 *
 *   node scripts/ha/verify.mjs [--runs N] [--keep]     (--keep: leave the run directory and its logs)
 */
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDb } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createClient as createOAuthClient, rotateSigningKey } from '@dms/auth/domain';
import { createTenant } from '@dms/domain/tenants';
import { freePort, startService } from '@dms/tools/processes';
import { createNetwork } from './network.mjs';
import { startCluster } from './cluster.mjs';
import { createClient, newStats, startLoad, startReceiver, PAUSE_SECONDS } from './load.mjs';
import { audit, drain, onEveryNode } from './checks.mjs';
import { phaseFigures, printRun, watchPrimary } from './report.mjs';
import { sh, sleep, stopAll, tail, waitFor } from './proc.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 1;
const keep = args.includes('--keep');
const say = (line) => process.stdout.write(`ha:verify: ${line}\n`);
const secret = () => randomBytes(18).toString('base64url');

async function postgresOwner() {
  const [uid, gid] = await Promise.all([sh('id', ['-u', 'postgres']), sh('id', ['-g', 'postgres'])]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Undo steps of the run under way, most recent last (also run on SIGINT and SIGTERM), and its directory. */
let cleanup = [];
let workDir;
async function cleanUp() {
  const steps = cleanup.reverse();
  cleanup = [];
  for (const step of steps) {
    // A step that hangs (a process that will not stop) must not keep the network from being removed.
    const limit = sleep(60_000).then(() => {
      throw new Error('did not finish within 60 s');
    });
    await Promise.race([Promise.resolve().then(step), limit]).catch((e) => say(`cleanup: ${e.message}`));
  }
  await stopAll();
}
// A fault outside the run's own error handling must not leave namespaces and daemons behind.
process.once('uncaughtException', (err) => {
  say(`unexpected error: ${err.stack ?? err.message}; stopping and removing what this run started`);
  void cleanUp().finally(() => process.exit(1));
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    say(`${signal}: stopping and removing what this run started`);
    void cleanUp().finally(() => {
      say(`stopped; logs kept in ${workDir}`);
      process.exit(1);
    });
  });
}

/** One run; resolves with its figures and whether every check passed. */
async function runOnce(n) {
  const runId = randomBytes(2).toString('hex');
  const work = (workDir = mkdtempSync(join(tmpdir(), 'dms-ha-')));
  chmodSync(work, 0o755);
  mkdirSync(join(work, 'logs'));
  const owner = await postgresOwner();
  chownSync(work, owner.uid, owner.gid);
  process.env.TEST_LOG_DIR = join(work, 'logs');
  let passed = false;
  try {
    const net = await createNetwork(runId);
    cleanup.push(() => net.remove());
    const secrets = { superuser: secret(), replication: secret(), rewind: secret(), app: secret() };
    const ports = { primary: await freePort(), replicas: await freePort(), pgbouncer: await freePort() };
    const t0 = Date.now();
    const cluster = await startCluster({ root: ROOT, work, net, secrets, ports, runId, owner });
    cleanup.push(() => cluster.stop());
    const original = await cluster.primary();
    say(
      `run ${n}: cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s: primary ${original.name}, synchronous standbys ${net.nodes
        .filter((x) => x !== original)
        .map((x) => x.name)
        .join(', ')}`,
    );

    const direct = `postgres://dms:${secrets.app}@127.0.0.1:${ports.primary}/dms`;
    const pooled = `postgres://dms:${secrets.app}@127.0.0.1:${ports.pgbouncer}/dms`;
    await waitFor(
      'PgBouncer to serve through HAProxy',
      async () => {
        const probe = new pg.Client({ connectionString: pooled });
        await probe.connect();
        try {
          return (await probe.query('SELECT 1 AS ok')).rows[0].ok === 1;
        } finally {
          await probe.end();
        }
      },
      30_000,
    );
    // HAProxy assumes a server up until its first checks fail, so just after start its primary port
    // may still hand a connection to a standby (a read-only transaction): wait until ten fresh
    // connections in a row reach the primary.
    await waitFor(
      'HAProxy to route only to the primary',
      async () => {
        for (let i = 0; i < 10; i++) {
          const probe = new pg.Client({ connectionString: direct });
          await probe.connect();
          try {
            if ((await probe.query('SELECT pg_is_in_recovery() AS standby')).rows[0].standby) return false;
          } finally {
            await probe.end();
          }
        }
        return true;
      },
      30_000,
    );
    await sh(process.execPath, [join(ROOT, 'tools/dist/migrate.js')], { env: { ...process.env, DATABASE_URL: direct } });
    const db = createDb(direct, 2, undefined, 'none');
    cleanup.push(() => db.destroy());
    const secretsKey = randomBytes(32).toString('base64');
    const box = new SecretBox(secretsKey);
    const [authPort, apiPort] = [await freePort(), await freePort()];
    const env = {
      NODE_ENV: 'production',
      SECRETS_KEY: secretsKey,
      DATABASE_URL: pooled,
      DATABASE_POOLER: 'transaction',
      DATABASE_LISTEN_URL: `postgres://dms:${secrets.app}@127.0.0.1:${ports.pgbouncer}/dms_session`,
      AUTH_ISSUER: `http://127.0.0.1:${authPort}`,
      API_AUDIENCE: `http://127.0.0.1:${apiPort}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      // Only a notification can make the issuer see a new key within the run: its poll is 10 minutes.
      KEY_RELOAD_SECONDS: '600',
      DISPATCH_POLL_SECONDS: '5',
      DISPATCH_LEASE_SECONDS: '20',
      WORKER_POLL_SECONDS: '1',
    };
    /** @type {Record<string, Awaited<ReturnType<typeof startService>>>} */
    const services = {};
    /** @type {[import('@dms/tools/processes').ServiceName, number | undefined][]} */
    const serviceList = [
      ['auth', authPort],
      ['api', apiPort],
      ['dispatcher', undefined],
      ['worker', undefined],
    ];
    for (const [name, port] of serviceList) {
      services[name] = await startService(name, env, port);
      cleanup.push(() => services[name].stop());
    }
    const pids = Object.fromEntries(Object.entries(services).map(([k, s]) => [k, s.child.pid]));

    const tenant = await createTenant(db, 'HA verify');
    const oauth = await createOAuthClient(db, box, { issuer: env.AUTH_ISSUER, audience: env.API_AUDIENCE }, { tenantId: tenant.id, name: 'ha-verify' });
    const stats = newStats();
    const clientOpts = {
      apiUrl: services.api.url,
      authUrl: services.auth.url,
      audience: env.API_AUDIENCE,
      clientId: oauth.client_id,
      clientSecret: oauth.client_secret,
    };
    const first = await createClient(stats, clientOpts).token();
    const client = createClient(stats, { ...clientOpts, token: first.access_token });
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const endpoint = await client.api('POST', '/webhooks', { url: receiver.url, enabled_events: ['*'] }, `${runId}-webhook`);
    receiver.setSecret(endpoint.signing_secret);
    const organisation = await client.api('POST', '/organisations', { name: 'Failover Utilities' }, `${runId}-org`);
    const customer = await client.api('POST', '/customers', { kind: 'individual', first_name: 'Ada', last_name: 'Lovelace' }, `${runId}-cus`);

    const primaries = watchPrimary(cluster);
    cleanup.push(() => primaries.stop());
    const load = startLoad(client, stats, { parties: { organisationId: organisation.id, customerId: customer.id }, runId });
    const phases = [];
    const phase = async (name, body) => {
      const p = { name, start: Date.now() };
      await body(p);
      p.end = Date.now();
      phases.push(p);
      return p;
    };
    const ackedSince = (t) => () => stats.acks.some((a) => a > t);

    await phase('steady load', () => sleep(10_000));
    await phase('crash: SIGKILL of the primary’s PostgreSQL and Patroni', async (p) => {
      const victim = await cluster.primary();
      p.detail = `${victim.name} killed`;
      await cluster.crash(victim);
      const next = await waitFor('a new primary', async () => ((await cluster.primary())?.name ?? victim.name) !== victim.name && cluster.primary(), 120_000);
      await waitFor('writes acknowledged again', ackedSince(Date.now()), 60_000);
      p.detail += `, ${next.name} promoted; ${victim.name} restarted`;
      cluster.restart(victim);
      await waitFor(`${victim.name} back as a synchronous standby`, () => cluster.healthy(), 180_000, 500);
    });
    let deposed;
    await phase('partition: the primary cut off the network', async (p) => {
      const victim = (deposed = await cluster.primary());
      await net.cut(victim);
      const next = await waitFor(
        'a new primary',
        async () => {
          const now = await cluster.primary();
          return now && now.name !== victim.name ? now : undefined;
        },
        120_000,
      );
      await waitFor('writes acknowledged again', ackedSince(Date.now()), 60_000);
      await sleep(5_000);
      await net.connect(victim);
      p.detail = `${victim.name} isolated, ${next.name} promoted; ${victim.name} reconnected`;
      await waitFor(`${victim.name} back as a synchronous standby`, () => cluster.healthy(), 180_000, 500);
    });
    // Back to the first primary; when the partition's election already chose it, back to the node
    // the partition deposed, so the third disruption is always a planned switchover.
    const leader = await cluster.primary();
    const target = leader.name !== original.name ? original : deposed;
    await phase(`fail back: switchover to ${target.name}`, async (p) => {
      p.detail = `${leader.name} → ${target.name}${target === original ? ', the first primary' : `, deposed by the partition (${original.name}, the first primary, was elected then)`}`;
      // Accepted once etcd lists the candidate as synchronous (Patroni answers 412 until then).
      await waitFor('the switchover to be accepted', () => cluster.switchover(leader, target).then(() => true), 60_000, 1000);
      await waitFor(`${target.name} primary`, async () => (await cluster.primary())?.name === target.name, 120_000);
      await waitFor('the old primary back as a synchronous standby', () => cluster.healthy(), 180_000, 500);
    });
    const settle = await phase('steady load after fail back', () => sleep(10_000));

    // The issuer's LISTEN survived three primaries: a key rotated now is picked up by notification.
    const rotated = await rotateSigningKey(db, box, 'RS256');
    const rotatedAt = Date.now();
    const kidOf = (token) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid;
    const keySeconds = await waitFor(
      'the issuer to sign with the rotated key',
      async () => kidOf((await client.token()).access_token) === rotated.kid && (Date.now() - rotatedAt) / 1000,
      20_000,
      200,
    ).catch(() => undefined);

    await load.stop();
    const drainSeconds = await drain(db, tenant.id, load.units, receiver, (PAUSE_SECONDS + 90) * 1000);
    const found = await audit(db, tenant.id, load.units, receiver);
    const acked = load.units.filter((u) => u.acked.debt).map((u) => u.debtId);
    const replicas = await onEveryNode(net.nodes, secrets.app, acked);
    const listeners = (
      await db.raw(
        "SELECT application_name AS a, count(*)::int AS n FROM pg_stat_activity WHERE application_name IN ('dms-auth-listen', 'dms-dispatcher-listen') GROUP BY 1",
      )
    ).rows;
    const ready = {};
    for (const [name, s] of Object.entries(services)) {
      const res = await fetch(`${s.url}/readyz`).catch(() => undefined);
      ready[name] = { same: s.child.pid === pids[name] && s.child.exitCode === null && s.child.signalCode === null, ready: res?.status === 200 };
    }
    const notifyLatency = [...receiver.deliveries.values()]
      .filter((d) => d.type === 'debt.created')
      .flatMap((d) => {
        const created = load.units.find((u) => u.debtId === d.objectId)?.acked.debt;
        return created !== undefined && created >= settle.start && created <= settle.end ? [d.at - created] : [];
      })
      .sort((a, b) => a - b);

    const result = {
      run: n,
      phases: phases.map((p) => ({ ...p, ...phaseFigures(p, stats, primaries.samples) })),
      stats,
      units: load.units,
      found,
      replicas,
      listeners,
      ready,
      keySeconds,
      notifyMedianMs: notifyLatency[Math.floor(notifyLatency.length / 2)],
      drainSeconds,
      unverified: receiver.unverified(),
      deliveries: receiver.deliveries.size,
    };
    passed = printRun(result, say);
    return passed;
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    say(`run ${n} FAILED: ${e.stack ?? e.message}`);
    for (const f of ['patroni-n1.log', 'patroni-n2.log', 'patroni-n3.log']) say(`--- ${f} (last lines)\n${tail(join(work, 'logs', f), 15)}`);
    return false;
  } finally {
    await cleanUp();
    if (passed && !keep) rmSync(work, { recursive: true, force: true });
    else say(`run ${n}: logs kept in ${work}`);
  }
}

let failed = false;
for (let i = 1; i <= runs && !failed; i++) failed = !(await runOnce(i));
say(failed ? 'FAILED' : `passed (${runs} run${runs > 1 ? 's' : ''})`);
process.exit(failed ? 1 : 0);
