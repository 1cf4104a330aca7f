/**
 * deploy/k8s, checked without a cluster: the base and the production overlay are rendered (the
 * Kustomize subset in kustomize.ts), every object is validated against the Kubernetes schema of
 * its kind (npm `kubernetes-models`, Ajv validators generated from the Kubernetes OpenAPI
 * document), then the deployment properties are asserted, network reachability included.
 */
import { describe, expect, test } from '@jest/globals';
import { SENSITIVE_SETTING } from '@dms/config';
import { validateKubernetes } from './schemas.js';
import { find, podSpec, renderedOverlays } from './manifests.js';
import { allows, type Peer } from './network-policy.js';

const overlays = renderedOverlays();
const production = overlays.production;
const SERVICES = [
  { name: 'auth', port: 4000 },
  { name: 'api', port: 3000 },
  { name: 'dispatcher', port: 3001 },
  { name: 'worker', port: 3002 },
] as const;

describe.each(Object.entries(overlays))('%s manifests', (_overlay, objects) => {
  test('every object is valid against the Kubernetes schema of its kind', () => {
    expect(objects.length).toBeGreaterThan(15);
    const problems = objects.flatMap((o) => validateKubernetes(o).map((e) => `${o.kind}/${o.metadata.name}: ${e}`));
    expect(problems).toEqual([]);
  });

  test('no Secret is committed; secret settings are references, never values', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const o of objects.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
      for (const c of podSpec(o).containers) {
        for (const e of c.env ?? []) {
          if (SENSITIVE_SETTING.test(e.name)) expect({ name: e.name, ref: e.valueFrom?.secretKeyRef?.name }).toEqual({ name: e.name, ref: 'dms-secrets' });
        }
      }
    }
    for (const cm of objects.filter((o) => o.kind === 'ConfigMap')) {
      expect(Object.keys((cm.data as object) ?? {}).filter((k) => SENSITIVE_SETTING.test(k))).toEqual([]);
    }
  });
});

test('the schema check rejects a malformed object', () => {
  const broken = structuredClone(find(production, 'Deployment', 'dms-api'));
  (podSpec(broken).containers[0]!.ports![0] as { containerPort: unknown }).containerPort = 'http';
  expect(validateKubernetes(broken).join()).toMatch(/containerPort/);
  expect(() => validateKubernetes({ apiVersion: 'example.com/v1', kind: 'Widget' })).toThrow(/no schema/);
});

describe('production overlay', () => {
  test('a Deployment, Service and PodDisruptionBudget per service, released images, in namespace dms', () => {
    for (const { name, port } of SERVICES) {
      const deployment = find(production, 'Deployment', `dms-${name}`);
      const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      const service = find(production, 'Service', `dms-${name}`);
      expect((service.spec as { selector: object }).selector).toEqual(selector);
      expect((service.spec as { ports: Array<{ port: number }> }).ports[0]!.port).toBe(port);
      const pdb = find(production, 'PodDisruptionBudget', `dms-${name}`);
      expect((pdb.spec as { selector: { matchLabels: object } }).selector.matchLabels).toEqual(selector);
      const c = podSpec(deployment).containers[0]!;
      expect(c.image).toBe(`registry.example.com/dms/${name}:0.1.0`);
      expect(c.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    }
    expect(production.every((o) => o.metadata.namespace === 'dms')).toBe(true);
  });

  test('probes, resources and a locked-down security context on every container', () => {
    for (const o of production.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
      const pod = podSpec(o);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(c.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(c.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
        if (o.kind === 'Deployment') {
          expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
          expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
        }
      }
    }
  });

  test('the termination grace period covers the pre-stop pause, the drain and its margin', () => {
    const grace = Number((find(production, 'ConfigMap', 'dms-common').data as Record<string, string>).SHUTDOWN_GRACE_SECONDS);
    for (const { name } of SERVICES) {
      const spec = (find(production, 'Deployment', `dms-${name}`).spec as { template: { spec: { terminationGracePeriodSeconds: number } } }).template.spec;
      const lifecycle = (podSpec(find(production, 'Deployment', `dms-${name}`)).containers[0] as { lifecycle?: { preStop?: { exec?: { command: string[] } } } })
        .lifecycle;
      const pause = Number(lifecycle?.preStop?.exec?.command[1] ?? 0);
      expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(pause + grace + 5);
    }
  });

  test('the API and the dispatcher autoscale; the issuer runs several replicas', () => {
    for (const name of ['api', 'dispatcher']) {
      const hpa = find(production, 'HorizontalPodAutoscaler', `dms-${name}`).spec as { scaleTargetRef: object; minReplicas: number; maxReplicas: number };
      expect(hpa.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: `dms-${name}` });
      expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
    }
    expect((find(production, 'Deployment', 'dms-auth').spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
    // Several workers are safe (each change is made once) and keep the changes going through a rollout.
    expect((find(production, 'Deployment', 'dms-worker').spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
  });

  test('the migration Job runs the migrate image once with the database secret', () => {
    const job = find(production, 'Job', 'dms-migrate');
    const c = podSpec(job).containers[0]!;
    expect(c.image).toBe('registry.example.com/dms/migrate:0.1.0');
    expect(c.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'dms-secrets', key: 'DATABASE_URL' });
    expect((job.spec as { template: { spec: { restartPolicy: string } } }).template.spec.restartPolicy).toBe('Never');
  });

  test('the production database budget fits the documented connection budget', () => {
    // replicas x DATABASE_POOL_MAX at full scale-out, as deploy/README.md computes it.
    const pool = (name: string) => Number((find(production, 'ConfigMap', `dms-${name}`).data as Record<string, string>).DATABASE_POOL_MAX);
    const hpaMax = (name: string) => (find(production, 'HorizontalPodAutoscaler', `dms-${name}`).spec as { maxReplicas: number }).maxReplicas;
    const authReplicas = (find(production, 'Deployment', 'dms-auth').spec as { replicas: number }).replicas;
    const workerReplicas = (find(production, 'Deployment', 'dms-worker').spec as { replicas: number }).replicas;
    const budget = authReplicas * pool('auth') + hpaMax('api') * pool('api') + hpaMax('dispatcher') * pool('dispatcher') + workerReplicas * pool('worker') + 2;
    expect(budget).toBe(261);
  });

  describe('network policies', () => {
    const namespace = { 'kubernetes.io/metadata.name': 'dms' };
    const podOf = (name: string): Peer => {
      const d = find(production, 'Deployment', `dms-${name}`);
      const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      const ports = Object.fromEntries((podSpec(d).containers[0]!.ports ?? []).map((p) => [p.name!, p.containerPort]));
      return { pod: labels, namespace, ports };
    };
    const migrate: Peer = { pod: { 'app.kubernetes.io/name': 'dms-migrate', 'app.kubernetes.io/part-of': 'dms' }, namespace };
    const postgres: Peer = { pod: { 'app.kubernetes.io/name': 'postgresql' }, namespace };
    const otherPod: Peer = { pod: { app: 'something-else' }, namespace };
    const otherNamespace: Peer = { pod: { app: 'x' }, namespace: { 'kubernetes.io/metadata.name': 'team-b' } };
    const prometheus: Peer = { pod: { app: 'prometheus' }, namespace: { 'kubernetes.io/metadata.name': 'monitoring' } };
    const internet: Peer = { ip: '203.0.113.7' };
    const managedDb: Peer = { ip: '10.20.0.5' };
    const can = (from: Peer, to: Peer, port: number) => allows(production, namespace, from, to, port);

    test('only the API and the issuer are reachable from outside', () => {
      expect(can(internet, podOf('api'), 3000)).toBe(true);
      expect(can(internet, podOf('auth'), 4000)).toBe(true);
      expect(can(otherNamespace, podOf('api'), 3000)).toBe(true);
      expect(can(internet, podOf('dispatcher'), 3001)).toBe(false);
      expect(can(otherNamespace, podOf('dispatcher'), 3001)).toBe(false);
      expect(can(internet, postgres, 5432)).toBe(false);
      expect(can(prometheus, podOf('dispatcher'), 3001)).toBe(true);
      expect(can(internet, podOf('worker'), 3002)).toBe(false);
      expect(can(otherNamespace, podOf('worker'), 3002)).toBe(false);
      expect(can(prometheus, podOf('worker'), 3002)).toBe(true);
    });

    test('only the services and the migration reach PostgreSQL', () => {
      for (const name of ['api', 'auth', 'dispatcher', 'worker']) {
        expect(can(podOf(name), postgres, 5432)).toBe(true);
        expect(can(podOf(name), managedDb, 5432)).toBe(true);
      }
      expect(can(migrate, postgres, 5432)).toBe(true);
      expect(can(otherPod, postgres, 5432)).toBe(false);
      expect(can(otherNamespace, postgres, 5432)).toBe(false);
    });

    test('the dispatcher reaches webhook receivers on 443 only, never private addresses', () => {
      expect(can(podOf('dispatcher'), internet, 443)).toBe(true);
      expect(can(podOf('dispatcher'), internet, 80)).toBe(false);
      expect(can(podOf('dispatcher'), { ip: '10.1.2.3' }, 443)).toBe(false);
      expect(can(podOf('dispatcher'), { ip: '169.254.169.254' }, 443)).toBe(false);
      expect(can(podOf('api'), podOf('auth'), 4000)).toBe(true);
      expect(can(podOf('dispatcher'), podOf('api'), 3000)).toBe(false);
      expect(can(podOf('worker'), podOf('api'), 3000)).toBe(false);
    });

    test('the worker, the portal and the API (refunds) reach the payment provider (public addresses, 443 only), never private ones', () => {
      for (const name of ['worker', 'portal', 'api']) {
        expect(can(podOf(name), internet, 443)).toBe(true);
        expect(can(podOf(name), internet, 80)).toBe(false);
        expect(can(podOf(name), { ip: '10.1.2.3' }, 443)).toBe(false);
        expect(can(podOf(name), { ip: '169.254.169.254' }, 443)).toBe(false);
      }
    });
  });
});

export {};
