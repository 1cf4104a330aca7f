/**
 * The highly available database of `npm run ha:verify`, from Debian's packages: per node (its own
 * network namespace, network.mjs) an etcd member and Patroni running PostgreSQL 15; on the host,
 * HAProxy routing to the primary by Patroni's REST checks and PgBouncer in transaction mode in
 * front of it. Patroni, HAProxy and PgBouncer read the files the deployment ships (deploy/ha/);
 * only addresses, paths and the leader lease's timings (shorter, to keep the run short) are the
 * run's own.
 */
import { chmodSync, chownSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemon, pidsWith, signalPids, stop, waitFor } from './proc.mjs';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const PATRONI_PORT = 8008;
/** The run's leader lease (deploy/ha/patroni.yml ships Patroni's defaults 30/10/10). */
export const LEASE = { ttl: 16, loop_wait: 2, retry_timeout: 5 };

/** Runs `args` inside a node's namespace as the `postgres` user (PostgreSQL and PgBouncer refuse root). */
const asPostgres = (ns, args) => ['netns', 'exec', ns, 'setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--', ...args];

/**
 * `fetch` with a time limit; resolves undefined when the peer does not answer in time.
 * @param {string} url
 * @returns {Promise<{ status: number, body: any } | undefined>} `body` is `{}` when it is not JSON
 */
async function get(url, ms = 800) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(ms) });
    return { status: res.status, body: await res.json().catch(() => ({})) };
  } catch {
    return undefined;
  }
}

/**
 * Starts etcd and Patroni on every node and waits for a primary with two streaming synchronous
 * standbys, then HAProxy and PgBouncer on the host.
 * @param o.root repository root; o.work run directory (writable by `postgres`); o.net createNetwork();
 *   o.secrets { superuser, replication, rewind, app } passwords; o.ports { primary, replicas, pgbouncer };
 *   o.owner { uid, gid } of the `postgres` user, who must own the files PostgreSQL and PgBouncer read
 */
export async function startCluster({ root, work, net, secrets, ports, runId, owner }) {
  const etcdHosts = net.nodes.map((n) => `${n.ip}:2379`);
  const initialCluster = net.nodes.map((n) => `${n.name}=http://${n.ip}:2380`).join(',');
  const nodeDir = (n) => join(work, n.name);
  const procs = {};

  const startEtcd = (n) =>
    daemon(
      'ip',
      [
        ...['netns', 'exec', n.ns, 'etcd', '--name', n.name, '--data-dir', join(nodeDir(n), 'etcd')],
        ...['--listen-client-urls', `http://${n.ip}:2379`, '--advertise-client-urls', `http://${n.ip}:2379`],
        ...['--listen-peer-urls', `http://${n.ip}:2380`, '--initial-advertise-peer-urls', `http://${n.ip}:2380`],
        ...['--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', `dms-ha-${runId}`],
        // Pre-vote: a member back from a partition does not depose the leader (default from etcd 3.5).
        // The v2 API: Patroni 3.0.2 renews its leader key there by compare-and-swap (deploy/ha/patroni.yml).
        ...['--heartbeat-interval', '200', '--election-timeout', '2000', '--pre-vote', '--enable-v2', '--log-level', 'warn'],
      ],
      { logFile: join(work, 'logs', `etcd-${n.name}.log`) },
    );

  const startPatroni = (n) =>
    daemon('ip', asPostgres(n.ns, ['patroni', join(nodeDir(n), 'patroni')]), {
      logFile: join(work, 'logs', `patroni-${n.name}.log`),
      env: { ...process.env, HOME: nodeDir(n), DMS_DB_PASSWORD: secrets.app },
    });

  for (const n of net.nodes) {
    const dir = nodeDir(n);
    mkdirSync(join(dir, 'patroni'), { recursive: true });
    copyFileSync(join(root, 'deploy/ha/patroni.yml'), join(dir, 'patroni', '00-shared.yml'));
    copyFileSync(join(root, 'deploy/ha/post-bootstrap.sh'), join(dir, 'post-bootstrap.sh'));
    chmodSync(join(dir, 'post-bootstrap.sh'), 0o755);
    // JSON is YAML: the node's own settings, merged over the shared file.
    const local = {
      name: n.name,
      restapi: { listen: `${n.ip}:${PATRONI_PORT}`, connect_address: `${n.ip}:${PATRONI_PORT}` },
      etcd: { hosts: etcdHosts },
      bootstrap: { dcs: LEASE, post_bootstrap: join(dir, 'post-bootstrap.sh') },
      postgresql: {
        listen: `${n.ip}:5432`,
        connect_address: `${n.ip}:5432`,
        data_dir: join(dir, 'data'),
        bin_dir: PG_BIN,
        pgpass: join(dir, 'pgpass'),
        parameters: { unix_socket_directories: dir },
        authentication: {
          superuser: { password: secrets.superuser },
          replication: { password: secrets.replication },
          rewind: { password: secrets.rewind },
        },
      },
    };
    writeFileSync(join(dir, 'patroni', '10-node.yml'), JSON.stringify(local, null, 2));
    for (const f of ['', 'patroni', 'patroni/00-shared.yml', 'patroni/10-node.yml', 'post-bootstrap.sh']) chownSync(join(dir, f), owner.uid, owner.gid);
    procs[n.name] = { etcd: startEtcd(n) };
  }
  for (const n of net.nodes) procs[n.name].patroni = startPatroni(n);

  const cluster = {
    nodes: net.nodes,
    procs,
    /** Patroni's view of a node (GET /patroni), or undefined when it does not answer. */
    status: async (n) => (await get(`http://${n.ip}:${PATRONI_PORT}/patroni`))?.body,
    /** The node answering 200 on /primary (what HAProxy routes to), or undefined. */
    async primary() {
      const answers = await Promise.all(
        net.nodes.map(async (n) => ((await get(`http://${n.ip}:${PATRONI_PORT}/primary`, 500))?.status === 200 ? n : undefined)),
      );
      return answers.find(Boolean);
    },
    /** Members as the leader sees them (GET /cluster). */
    async members() {
      const p = await cluster.primary();
      return p ? ((await get(`http://${p.ip}:${PATRONI_PORT}/cluster`))?.body?.members ?? []) : [];
    },
    /** True when a primary runs with both other nodes streaming as synchronous standbys. */
    async healthy() {
      const members = await cluster.members();
      const standbys = members.filter((m) => m.role === 'sync_standby' && ['running', 'streaming'].includes(m.state) && (m.lag === 0 || m.lag === '0'));
      return members.length === net.nodes.length && standbys.length === net.nodes.length - 1;
    },
    /** SIGKILLs a node's Patroni and every PostgreSQL process of its data directory (a crash). */
    async crash(n) {
      const pg = await pidsWith(join(nodeDir(n), 'data'));
      signalPids([procs[n.name].patroni.pid, ...pg], 'SIGKILL');
      await procs[n.name].patroni.exited;
      await waitFor(`PostgreSQL of ${n.name} gone`, async () => (await pidsWith(join(nodeDir(n), 'data'))).length === 0, 30_000);
    },
    /** Starts a node's Patroni again (as its service manager would after the crash). */
    restart(n) {
      procs[n.name].patroni = startPatroni(n);
    },
    /** Planned switchover to `candidate` through the leader's REST API. */
    async switchover(leader, candidate) {
      const res = await fetch(`http://${leader.ip}:${PATRONI_PORT}/switchover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ leader: leader.name, candidate: candidate.name }),
      });
      if (res.status !== 200) throw new Error(`switchover refused: ${res.status} ${await res.text()}`);
    },
    async stop() {
      for (const p of [procs.pgbouncer, procs.haproxy]) await stop(p);
      await Promise.all(net.nodes.map((n) => stop(procs[n.name].patroni, 'SIGTERM', 30_000)));
      // PostgreSQL left behind by a Patroni that was killed or did not stop it.
      for (const n of net.nodes) signalPids(await pidsWith(join(nodeDir(n), 'data')), 'SIGKILL');
      await Promise.all(net.nodes.map((n) => stop(procs[n.name].etcd)));
    },
  };

  await waitFor('a primary with two synchronous standbys', () => cluster.healthy(), 180_000, 500);

  // HAProxy and PgBouncer on the host, with the shipped configuration files.
  procs.haproxy = daemon('haproxy', ['-db', '-f', join(root, 'deploy/ha/haproxy.cfg')], {
    logFile: join(work, 'logs', 'haproxy.log'),
    env: {
      ...process.env,
      DMS_HAPROXY_PRIMARY_BIND: `127.0.0.1:${ports.primary}`,
      DMS_HAPROXY_REPLICAS_BIND: `127.0.0.1:${ports.replicas}`,
      DMS_PG1: `${net.nodes[0].ip}:5432`,
      DMS_PG2: `${net.nodes[1].ip}:5432`,
      DMS_PG3: `${net.nodes[2].ip}:5432`,
      DMS_PATRONI_PORT: String(PATRONI_PORT),
    },
  });
  const bouncer = join(work, 'pgbouncer');
  mkdirSync(bouncer, { recursive: true });
  copyFileSync(join(root, 'deploy/ha/pgbouncer.ini'), join(bouncer, 'shared.ini'));
  writeFileSync(join(bouncer, 'userlist.txt'), `"dms" "${secrets.app}"\n`, { mode: 0o600 });
  const upstream = `host=127.0.0.1 port=${ports.primary} dbname=dms`;
  writeFileSync(
    join(bouncer, 'pgbouncer.ini'),
    [
      '[databases]',
      `dms = ${upstream}`,
      `dms_session = ${upstream} pool_mode=session`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${ports.pgbouncer}`,
      'unix_socket_dir =',
      `auth_file = ${join(bouncer, 'userlist.txt')}`,
      // The shipped settings, last (deploy/ha/pgbouncer.ini).
      `%include ${join(bouncer, 'shared.ini')}`,
      '',
    ].join('\n'),
  );
  for (const f of ['', 'shared.ini', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(bouncer, f), owner.uid, owner.gid);
  procs.pgbouncer = daemon('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', 'pgbouncer', join(bouncer, 'pgbouncer.ini')], {
    logFile: join(work, 'logs', 'pgbouncer.log'),
  });
  return cluster;
}
