/**
 * The highly available deployment files (deploy/README.md, "High availability"), checked without a
 * cluster: deploy/ha (Patroni, HAProxy, PgBouncer settings and their Compose file) and the
 * CloudNativePG overlay deploy/k8s/overlays/production-ha. `npm run ha:verify` runs the deploy/ha
 * settings for real; these tests pin what the services rely on: synchronous replication, routing to
 * the primary only, transaction pooling with DATABASE_POOLER=transaction, LISTEN over a session,
 * the role carrying the session settings the services would otherwise send, and who reaches whom.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { poolTimeoutSpec } from '@dms/config';
import { REPO_ROOT } from '@dms/tools/processes';
import { loadServiceSettings, SERVICES } from '@dms/tools/settings';
import { composeValidator, describeErrors, validateKubernetes } from './schemas.js';
import { containerEnvNames, find, podSpec, type ComposeService } from './manifests.js';
import { K8S_DIR, renderKustomization, type Manifest } from './kustomize.js';
import { allows, type Peer } from './network-policy.js';

const HA = join(REPO_ROOT, 'deploy', 'ha');
const read = (file: string) => readFileSync(join(HA, file), 'utf8');
const compose = parse(read('compose.yml'), { merge: true }) as { services: Record<string, ComposeService & { command?: string[] }> };
const patroni = parse(read('patroni.yml')) as Record<string, any>;
const overlay = renderKustomization(join(K8S_DIR, 'overlays', 'production-ha'));

/** The role settings in SQL, e.g. `statement_timeout` → `30s`, as post-bootstrap.sh and the Cluster set them. */
function roleSettings(sql: string): Record<string, string> {
  return Object.fromEntries([...sql.matchAll(/ALTER ROLE dms SET (\w+) TO '([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
}
/** What the services send at connect without a pooler (libs/db createDb, the settings' defaults). */
const SESSION = {
  timezone: 'UTC',
  statement_timeout: `${Number(poolTimeoutSpec().DATABASE_STATEMENT_TIMEOUT_MS.default) / 1000}s`,
  lock_timeout: `${Number(poolTimeoutSpec().DATABASE_LOCK_TIMEOUT_MS.default) / 1000}s`,
};

describe('deploy/ha settings', () => {
  test('Patroni: synchronous replication that never acknowledges a write held by the primary alone; rewind; etcd v2 API', () => {
    expect(patroni.bootstrap.dcs).toMatchObject({ synchronous_mode: true, synchronous_mode_strict: true, synchronous_node_count: 2 });
    expect(patroni.bootstrap.dcs.postgresql).toMatchObject({ use_pg_rewind: true, use_slots: true });
    expect(patroni.bootstrap.dcs.postgresql.parameters).toMatchObject({ synchronous_commit: 'on', wal_log_hints: 'on' });
    expect(patroni.postgresql.bin_dir).toBe('/usr/lib/postgresql/15/bin');
    expect(patroni.bootstrap.post_bootstrap).toBe('/etc/patroni/post-bootstrap.sh');
    expect(patroni.etcd3).toBeUndefined();
  });

  test('the role created at bootstrap carries exactly the session settings the services send without a pooler', () => {
    expect(roleSettings(read('post-bootstrap.sh'))).toEqual(SESSION);
  });

  test('HAProxy routes read-write traffic to the node whose Patroni answers /primary, closing sessions of a node marked down', () => {
    const primary = /listen primary\n([\s\S]*?)(?:\n\n|$)/.exec(read('haproxy.cfg'))![1]!;
    expect(primary).toMatch(/option httpchk OPTIONS \/primary/);
    expect(primary).toMatch(/http-check expect status 200/);
    expect(primary).toMatch(/on-marked-down shutdown-sessions/);
    expect(primary.match(/^\s+server pg\d /gm)).toHaveLength(3);
  });

  test('PgBouncer pools by transaction; its shared file has no section header (it is included inside [pgbouncer])', () => {
    const shared = read('pgbouncer.ini');
    expect(shared).toMatch(/^pool_mode = transaction$/m);
    expect(shared).not.toMatch(/^\[/m);
    const local = read('compose-pgbouncer.ini');
    expect(local).toMatch(/^dms = host=haproxy port=5000 dbname=dms$/m);
    expect(local).toMatch(/^dms_session = host=haproxy port=5000 dbname=dms pool_mode=session$/m);
    expect(local.trimEnd().split('\n').at(-1)).toBe('%include /etc/pgbouncer/shared.ini');
  });
});

describe('deploy/ha/compose.yml', () => {
  test('is valid against the Compose Specification schema', () => {
    const validate = composeValidator();
    const interpolated = JSON.parse(JSON.stringify(compose).replace(/\$\{[A-Z_]+:-([^}"]*)\}/g, '$1'));
    expect(describeErrors(validate(interpolated) ? [] : validate.errors)).toEqual([]);
  });

  test('three etcd members (pre-vote, v2 API), three Patroni nodes on all of them, HAProxy, PgBouncer, Redis, the migration and the services', () => {
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(
      ['api', 'auth', 'dispatcher', 'etcd1', 'etcd2', 'etcd3', 'haproxy', 'migrate', 'pg1', 'pg2', 'pg3', 'pgbouncer', 'portal', 'redis', 'worker'].sort(),
    );
    for (const name of ['etcd1', 'etcd2', 'etcd3']) expect(s[name]!.command).toEqual(expect.arrayContaining(['--pre-vote', '--enable-v2']));
    for (const name of ['pg1', 'pg2', 'pg3']) {
      expect(s[name]!.environment).toMatchObject({ PATRONI_NAME: name, PATRONI_ETCD_HOSTS: 'etcd1:2379,etcd2:2379,etcd3:2379' });
    }
  });

  test('each service sets exactly the variables it reads; pools go through PgBouncer in transaction mode, LISTEN through its session pool', async () => {
    const settings = await loadServiceSettings();
    for (const name of SERVICES) {
      const env = compose.services[name]!.environment!;
      expect([name, Object.keys(env).sort()]).toEqual([name, Object.keys(settings[name]).sort()]);
      expect(env.DATABASE_POOLER).toBe('transaction');
      expect(env.DATABASE_URL).toMatch(/@pgbouncer:6432\/dms$/);
      if ('DATABASE_LISTEN_URL' in env) expect(env.DATABASE_LISTEN_URL).toMatch(/@pgbouncer:6432\/dms_session$/);
      expect(compose.services[name]!.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
    }
    expect(compose.services.migrate!.environment!.DATABASE_URL).toMatch(/@haproxy:5000\/dms$/);
  });
});

describe('deploy/k8s/overlays/production-ha (CloudNativePG)', () => {
  const namespace = { 'kubernetes.io/metadata.name': 'dms' };
  const cluster = find(overlay, 'Cluster', 'dms-db').spec as Record<string, any>;
  const pooler = find(overlay, 'Pooler', 'dms-db-pooler-rw').spec as Record<string, any>;

  test('every Kubernetes object is valid against its schema; the operator objects are the CloudNativePG v1 Cluster and Pooler', () => {
    const builtIn = overlay.filter((o) => !o.apiVersion.startsWith('postgresql.cnpg.io/'));
    expect(builtIn.flatMap((o) => validateKubernetes(o).map((e) => `${o.kind}/${o.metadata.name}: ${e}`))).toEqual([]);
    expect(overlay.filter((o) => o.apiVersion.startsWith('postgresql.cnpg.io/')).map((o) => `${o.apiVersion} ${o.kind}`)).toEqual([
      'postgresql.cnpg.io/v1 Cluster',
      'postgresql.cnpg.io/v1 Pooler',
    ]);
    expect(overlay.every((o) => o.metadata.namespace === 'dms')).toBe(true);
  });

  test('three PostgreSQL 15 instances on separate nodes, a commit acknowledged only once a replica has it', () => {
    expect(cluster.instances).toBe(3);
    expect(cluster.imageName).toMatch(/^ghcr\.io\/cloudnative-pg\/postgresql:15\.\d+$/);
    expect(cluster.postgresql.synchronous).toEqual({ method: 'any', number: 1, dataDurability: 'required' });
    expect(cluster.affinity).toMatchObject({ enablePodAntiAffinity: true, podAntiAffinityType: 'required' });
    expect(roleSettings(cluster.bootstrap.initdb.postInitApplicationSQL.join('\n'))).toEqual(SESSION);
  });

  test('the services pool through the Pooler (transaction mode); LISTEN and the migration go to the primary directly', () => {
    expect(pooler).toMatchObject({ cluster: { name: 'dms-db' }, type: 'rw', pgbouncer: { poolMode: 'transaction' } });
    expect((find(overlay, 'ConfigMap', 'dms-common').data as Record<string, string>).DATABASE_POOLER).toBe('transaction');
    const ref = (deployment: Manifest, name: string) => podSpec(deployment).containers[0]!.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(ref(find(overlay, 'Job', 'dms-migrate'), 'DATABASE_URL')).toEqual({ name: 'dms-secrets', key: 'DATABASE_PRIMARY_URL' });
    for (const name of ['auth', 'dispatcher']) {
      expect(ref(find(overlay, 'Deployment', `dms-${name}`), 'DATABASE_LISTEN_URL')).toMatchObject({ name: 'dms-secrets', key: 'DATABASE_PRIMARY_URL' });
    }
  });

  test('the API, the issuer and the portal stay in their Services through a failover (readiness fails for 60 s before a pod is taken out)', () => {
    for (const name of ['api', 'auth', 'portal']) {
      const probe = (
        podSpec(find(overlay, 'Deployment', `dms-${name}`)).containers[0] as { readinessProbe?: { periodSeconds: number; failureThreshold: number } }
      ).readinessProbe!;
      expect([name, probe.periodSeconds * probe.failureThreshold]).toEqual([name, 60]);
    }
  });

  test('each Deployment still sets exactly the variables its service reads', async () => {
    const settings = await loadServiceSettings();
    for (const name of SERVICES) {
      const container = podSpec(find(overlay, 'Deployment', `dms-${name}`)).containers[0]!;
      expect([name, [...containerEnvNames(overlay, container)].sort()]).toEqual([name, Object.keys(settings[name]).sort()]);
    }
  });

  test('the services reach the Pooler and the instances; the Pooler and the replicas reach the instances; nobody else does', () => {
    const pod = (name: string): Peer => ({ pod: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'dms' }, namespace });
    const instance: Peer = { pod: { 'app.kubernetes.io/name': 'postgresql', 'cnpg.io/cluster': 'dms-db' }, namespace };
    const poolerPod: Peer = { pod: { 'app.kubernetes.io/name': 'dms-db-pooler', 'cnpg.io/poolerName': 'dms-db-pooler-rw' }, namespace };
    const operator: Peer = { pod: { 'app.kubernetes.io/name': 'cloudnative-pg' }, namespace: { 'kubernetes.io/metadata.name': 'cnpg-system' } };
    const otherPod: Peer = { pod: { app: 'something-else' }, namespace };
    const otherNamespace: Peer = { pod: { app: 'x' }, namespace: { 'kubernetes.io/metadata.name': 'team-b' } };
    const can = (from: Peer, to: Peer, port: number) => allows(overlay, namespace, from, to, port);
    for (const name of ['dms-api', 'dms-auth', 'dms-dispatcher', 'dms-worker', 'dms-portal']) {
      expect([name, can(pod(name), poolerPod, 5432)]).toEqual([name, true]);
      expect([name, can(pod(name), instance, 5432)]).toEqual([name, true]);
    }
    expect(can(pod('dms-migrate'), instance, 5432)).toBe(true);
    expect(can(poolerPod, instance, 5432)).toBe(true);
    expect(can(instance, instance, 5432)).toBe(true);
    expect(can(operator, instance, 8000)).toBe(true);
    for (const stranger of [otherPod, otherNamespace]) {
      expect(can(stranger, instance, 5432)).toBe(false);
      expect(can(stranger, poolerPod, 5432)).toBe(false);
    }
    // The production overlay's managed-database range is gone with the managed database.
    expect(can(pod('dms-api'), { ip: '10.20.0.5' }, 5432)).toBe(false);
  });
});
