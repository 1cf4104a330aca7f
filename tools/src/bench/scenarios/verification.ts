/**
 * Token verification: what checking the bearer token costs the API.
 *
 * The API has no way to serve a tenant endpoint without a token, and adding one only for a
 * benchmark would measure a configuration nobody runs. So the cost is measured on the real
 * endpoint, in two ways side by side:
 * - throughput of the trivial authenticated endpoint beside `/healthz` (same middleware stack up to
 *   authentication, no token, no database) and beside pgbench of the endpoint's own SQL;
 * - a V8 CPU profile of a second API process under the same load, charging each sample to its
 *   innermost script frame and counting what is charged to verification (the middleware,
 *   jsonwebtoken, jws/jwa, jwks-rsa and the OpenSSL verify they call). That share is the cost of
 *   authentication; the
 *   throughput the endpoint would reach without it is estimated as rps / (1 − share).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attribute, readProfile, topSelf } from '../cpu-profile.js';
import { log, type BenchContext } from '../context.js';
import { measureHttp } from '../load.js';
import { fmt, fmtMs, fmtRatio, type ScenarioResult } from '../model.js';
import { measurePgbench } from '../pgbench.js';
import { cpuProfileEnv } from '../stack.js';

/** Frames that belong to verifying the bearer token. */
const AUTH_FRAMES = /middleware\/authenticate\.js|node_modules\/(jsonwebtoken|jws|jwa|jwks-rsa|lru-memoizer|jose)\//;

/** The trivial endpoint: `GET /tenants/me` when the API has it, else a one-item list of an empty tenant. */
async function trivialEndpoint(apiUrl: string, token: string): Promise<{ path: string; sql: string }> {
  const res = await fetch(`${apiUrl}/tenants/me`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status === 200) return { path: '/tenants/me', sql: `SELECT * FROM tenants WHERE id = :tenant LIMIT 1;\n` };
  return {
    path: '/organisations?limit=1',
    sql:
      `SELECT * FROM organisations WHERE organisations.tenant_id = :tenant ORDER BY organisations.seq DESC LIMIT 2;\n` +
      `SELECT coalesce(sum(count), 0) FROM list_counters WHERE tenant_id = :tenant AND list = 'organisations' AND parent_id = '';\n`,
  };
}

/** Measures the cost of token verification on an empty tenant's trivial endpoint. */
export async function verificationScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const tenant = await stack.newTenant('Bench Empty Tenant');
  const token = await stack.token(tenant);
  const endpoint = await trivialEndpoint(stack.api.url, token);
  const http = { method: 'GET' as const, connections: settings.connections, ...ctx.timing() };
  const auth = { authorization: `Bearer ${token}` };

  log(`verification: GET ${endpoint.path}`);
  const authed = await measureHttp(
    'api.auth',
    `API GET ${endpoint.path} (authenticated)`,
    'service',
    {
      ...http,
      url: `${stack.api.url}${endpoint.path}`,
      headers: auth,
    },
    stack.api.child.pid,
  );
  log('verification: GET /healthz');
  const health = await measureHttp(
    'api.healthz',
    'API GET /healthz (no token, no database)',
    'reference',
    { ...http, url: `${stack.api.url}/healthz` },
    stack.api.child.pid,
  );
  log('verification: pgbench of the endpoint SQL');
  const sql = await measurePgbench('pg.auth', `pgbench: the SQL of GET ${endpoint.path}`, 'reference', {
    databaseUrl: settings.databaseUrl,
    clients: settings.connections,
    script: endpoint.sql,
    vars: { tenant: tenant.tenantId },
    ...ctx.timing(),
  });

  log('verification: profiled API');
  const dir = await mkdtemp(join(tmpdir(), 'dms-cpuprof-'));
  let share: number;
  let top: string[];
  try {
    const profiled = await stack.startService('api', 'API (profiled instance)', cpuProfileEnv(dir));
    await measureHttp('api.auth.profiled', 'profiled', 'service', { ...http, url: `${profiled.url}${endpoint.path}`, headers: auth });
    await stack.stopExtra();
    const profile = await readProfile(dir);
    share = attribute(profile, AUTH_FRAMES).share;
    top = topSelf(profile, 12);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  return {
    name: 'verification',
    title: 'Token verification',
    runs: [authed, health, sql],
    checks: [
      {
        what: `Share of API CPU spent verifying the token (GET ${endpoint.path})`,
        value:
          `${(share * 100).toFixed(1)}%` + (authed.cpuMsPerOp ? ` (≈ ${fmtMs(share * authed.cpuMsPerOp)} of ${fmtMs(authed.cpuMsPerOp)} CPU/request)` : ''),
        reference: `≈ ${fmt(authed.rps / (1 - share))} req/s without it (est.)`,
        ratio: fmtRatio(authed.rps / (authed.rps / (1 - share))),
        target: '< 15%',
        met: share < 0.15,
      },
      {
        what: `Authenticated GET ${endpoint.path} vs GET /healthz`,
        value: `${fmt(authed.rps)} req/s`,
        reference: `${fmt(health.rps)} req/s`,
        ratio: fmtRatio(authed.rps / health.rps),
        target: '(context)',
        met: null,
      },
    ],
    notes: [
      'Method: the API cannot serve a tenant endpoint without a token, and a benchmark-only switch to allow that would measure a ' +
        'configuration nobody runs. The cost of verification is therefore measured inside the real endpoint: a second API process ' +
        'recording a V8 CPU profile took the same load; each sample is charged to the innermost script frame on its stack (native code such ' +
        'as the OpenSSL verification to the script that called it), and the samples charged to the authentication middleware, ' +
        'jsonwebtoken, jws/jwa or jwks-rsa count as verification (innermost, because Express middlewares call the rest of the chain ' +
        'synchronously below their own frame); the share is of busy samples (idle excluded, GC included). `/healthz` and pgbench of the ' +
        "endpoint's SQL bound the figure from above and from the database side. " +
        'The JWKS is fetched once per API process and cached (jwks-rsa), never per request.',
      `Top self time in the profiled API under this load:\n\n\`\`\`\n${top.join('\n')}\n\`\`\``,
    ],
  };
}
