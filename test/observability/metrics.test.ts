/**
 * Dashboards and alerts (docs/api.md section 11): every metric the alerting rules and the Grafana
 * dashboard use is exported by a running service (its `/metrics`, read from the issuer, the API, a
 * dispatcher and a worker), the gauges read at scrape time carry values, the Kubernetes
 * `PrometheusRule` carries exactly the groups of rules.yml, and the compose overlay that provisions
 * Prometheus and Grafana is valid and names files that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import YAML from 'yaml';
import { REPO_ROOT } from '@dms/tools/processes';
import { AUTH_URL, API_URL, SERVICE_ENV, closeHarness, newTenant } from '../support/harness.js';
import { serviceSet } from '../support/services.js';
import { composeValidator, describeErrors } from '../deploy/schemas.js';

const DIR = join(REPO_ROOT, 'deploy', 'observability');
const rules = YAML.parse(readFileSync(join(DIR, 'rules.yml'), 'utf8')) as { groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }> };
const dashboard = JSON.parse(readFileSync(join(DIR, 'grafana', 'dashboards', 'dms.json'), 'utf8')) as {
  panels: Array<{ title: string; datasource: { uid: string }; targets: Array<{ expr: string }> }>;
};

/** PromQL words that are not metric names. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label matchers,
 * ranges, grouping clauses, function calls and keywords are taken out.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((n) => !KEYWORDS.has(n) && !/^\d/.test(n));
  return [...new Set(names)];
}

/** `name -> type` of every `# TYPE` line of an exposition. */
function declared(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Whether `name` is exported by `types`: itself, or a histogram's `_bucket`/`_count`/`_sum` series. */
function isExported(name: string, types: Map<string, string>): boolean {
  if (types.has(name)) return true;
  const base = /^(.*)_(bucket|count|sum)$/.exec(name)?.[1];
  return base !== undefined && ['histogram', 'summary'].includes(types.get(base) ?? '');
}

/** The value of the sample `name{labels}` in an exposition (labels matched as a substring). */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

const services = serviceSet();
const exposition: Record<string, string> = {};

beforeAll(async () => {
  const tenant = await newTenant();
  const only = { DISPATCH_TENANT_IDS: tenant.tenantId, WORKER_TENANT_IDS: tenant.tenantId };
  const [dispatcher, worker] = await Promise.all([
    services.start('dispatcher', { ...SERVICE_ENV, ...only }),
    services.start('worker', { ...SERVICE_ENV, ...only }),
  ]);
  for (const [name, url] of Object.entries({ auth: AUTH_URL, api: API_URL, dispatcher: dispatcher.url, worker: worker.url })) {
    exposition[name] = await (await fetch(`${url}/metrics`)).text();
  }
});

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
});

describe('every metric used is exported by a service', () => {
  const exported = () => new Map(Object.values(exposition).flatMap((text) => [...declared(text)]));

  test.each(rules.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr] as const)))('alert %s', (_alert, expr) => {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !isExported(n, exported()))).toEqual([]);
  });

  test.each(dashboard.panels.map((p) => [p.title, p.targets.map((t) => t.expr)] as const))('dashboard panel %s', (_title, exprs) => {
    const names = exprs.flatMap(metricNames);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !isExported(n, exported()))).toEqual([]);
  });

  test('the check catches a metric no service exports', () => {
    expect(metricNames('sum by (route) (rate(dms_no_such_total{status=~"5.."}[5m])) / max(db_pool_max_connections) > 0.5')).toEqual([
      'dms_no_such_total',
      'db_pool_max_connections',
    ]);
    expect(isExported('dms_no_such_total', exported())).toBe(false);
    expect(isExported('http_request_duration_seconds_bucket', exported())).toBe(true);
  });
});

test('the gauges read at scrape time carry values: pools, backlog age, partition runway, engine lag', () => {
  expect(sample(exposition.api!, 'db_pool_max_connections', 'service="api"')).toBe(Number(SERVICE_ENV.DATABASE_POOL_MAX ?? 10));
  for (const service of ['auth', 'api', 'dispatcher', 'worker']) {
    expect(sample(exposition[service]!, 'db_pool_connections', 'state="used"')).toBeGreaterThanOrEqual(0);
  }
  // The dispatcher serves a tenant with nothing queued: nothing waits.
  expect(exposition.dispatcher).toMatch(/^webhook_queue_oldest_due_seconds\{service="dispatcher"\} 0$/m);
  // The partitions made by the migrations and the retention job reach days ahead.
  for (const table of ['events', 'webhook_deliveries', 'webhook_delivery_attempts']) {
    expect(sample(exposition.worker!, 'dms_partition_runway_seconds', `table="${table}"`)).toBeGreaterThan(86_400);
  }
  expect(sample(exposition.worker!, 'dms_engine_lag_seconds', 'change="pause_ended"')).toBe(0);
  expect(sample(exposition.worker!, 'dms_engine_lag_seconds', 'change="instalment_missed"')).toBe(0);
  // Declared for the payout runs, which add their lag through the same mechanism.
  expect(exposition.worker).toContain('# TYPE dms_payout_lag_seconds gauge');
});

test("the Kubernetes PrometheusRule carries exactly rules.yml's groups (npm run alerts:generate)", () => {
  const resource = YAML.parse(readFileSync(join(DIR, 'prometheus-rule.yaml'), 'utf8')) as { apiVersion: string; kind: string; spec: { groups: unknown } };
  expect(resource.apiVersion).toBe('monitoring.coreos.com/v1');
  expect(resource.kind).toBe('PrometheusRule');
  expect(resource.spec.groups).toEqual(rules.groups);
});

test('the compose overlay is valid, provisions the dashboard and the rules, and mounts files that exist', () => {
  const overlay = YAML.parse(readFileSync(join(DIR, 'compose.yml'), 'utf8')) as { services: Record<string, { volumes?: string[] }> };
  const validate = composeValidator();
  const interpolated = JSON.parse(JSON.stringify(overlay).replace(/\$\{[A-Z_]+:-([^}"]*)\}/g, '$1'));
  expect(describeErrors(validate(interpolated) ? [] : validate.errors)).toEqual([]);
  const mounts = Object.values(overlay.services).flatMap((s) => s.volumes ?? []);
  for (const m of mounts.filter((v) => v.startsWith('./'))) expect(existsSync(join(REPO_ROOT, m.split(':')[0]!))).toBe(true);
  expect(mounts).toContain('./deploy/observability/rules.yml:/etc/prometheus/rules.yml:ro');
  const prometheus = YAML.parse(readFileSync(join(DIR, 'prometheus.yml'), 'utf8')) as {
    rule_files: string[];
    scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
  };
  expect(prometheus.rule_files).toEqual(['/etc/prometheus/rules.yml']);
  expect(prometheus.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets)).sort()).toEqual([
    'api:3000',
    'auth:4000',
    'dispatcher:3001',
    'portal:3005',
    'worker:3002',
  ]);
  const datasource = YAML.parse(readFileSync(join(DIR, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8')) as {
    datasources: Array<{ uid: string }>;
  };
  expect(new Set(dashboard.panels.map((p) => p.datasource.uid))).toEqual(new Set([datasource.datasources[0]!.uid]));
});
