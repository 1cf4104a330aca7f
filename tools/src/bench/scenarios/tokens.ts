/**
 * Tokens: `POST /oauth/token` (client_credentials, client_secret_basic) beside the raw signing rate
 * of the issuer's own key in Node on every core (the cryptographic ceiling: a token can not be
 * issued faster than it can be signed).
 *
 * The requests rotate through `BENCH_TOKEN_CLIENTS` distinct clients (more than oidc-provider's own
 * LRU of 100 `Client` objects holds). The issuer caches client lookups for CLIENT_CACHE_TTL_SECONDS
 * (invalidated on every change by LISTEN/NOTIFY), and every client here asks again well within that,
 * so the run measures the cached path: a client asking once an hour would cost one lookup more.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createClient, loadSigningKeys } from '@dms/auth/domain';
import { log, type BenchContext } from '../context.js';
import { measureHttp } from '../load.js';
import { fmt, fmtRatio, quantile, type LoadRun, type ScenarioResult } from '../model.js';
import type { SigningJob } from '../signing-worker.js';
import { basicAuth } from '../stack.js';

const SIGNING_WORKER = fileURLToPath(new URL('../signing-worker.js', import.meta.url));

/** Signs on `workers` threads at once; returns signatures per second over all of them. */
async function signingCeiling(job: Omit<SigningJob, 'signingInput'> & { signingInput: string }, workers: number): Promise<LoadRun> {
  const results = await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<{ count: number; latencies: number[] }>((resolve, reject) => {
          const w = new Worker(SIGNING_WORKER, { workerData: job });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  const count = results.reduce((s, r) => s + r.count, 0);
  const lat = Float64Array.from(results.flatMap((r) => r.latencies));
  return {
    key: 'crypto.sign',
    label: `Node crypto.sign ${job.jwk.alg} (${workers} threads)`,
    kind: 'ceiling',
    rps: count / job.durationSec,
    p50: quantile(lat, 0.5),
    p99: quantile(lat, 0.99),
    count,
    durationSec: job.durationSec,
    concurrency: workers,
  };
}

/** Runs the token endpoint and the signing ceiling (creates its own tenant and clients). */
export async function tokensScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, settings } = ctx;
  const owner = await stack.newTenant('Bench Token Tenant');
  const issuer = { issuer: stack.env.AUTH_ISSUER!, audience: stack.env.API_AUDIENCE! };
  const clients = [owner];
  for (let i = 1; i < settings.tokenClients; i++) {
    const c = await createClient(stack.db, stack.box, issuer, { tenantId: owner.tenantId, name: `bench-${i}` });
    clients.push({ tenantId: owner.tenantId, clientId: c.client_id, clientSecret: c.client_secret });
  }
  // A real token, so the ceiling signs an input of the same size and key.
  const sample = await stack.token(owner);
  const [header, payload] = sample.split('.');
  const keys = await loadSigningKeys(stack.db, stack.box, 3600);
  const jwk = keys.keys.find((k) => k.kid === keys.activeKid)!;

  log('tokens: POST /oauth/token');
  const endpoint = await measureHttp(
    'auth.token',
    `Issuer POST /oauth/token (${fmt(clients.length)} clients)`,
    'service',
    {
      url: `${stack.auth.url}/oauth/token`,
      method: 'POST',
      connections: settings.connections,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: stack.tokenRequestBody(),
      variants: clients.map((c) => ({ headers: { authorization: basicAuth(c) } })),
      ...ctx.timing(),
    },
    stack.auth.child.pid,
  );
  log('tokens: raw signing ceiling');
  const workers = availableParallelism();
  const ceiling = await signingCeiling({ jwk, signingInput: `${header}.${payload}`, ...ctx.timing() }, workers);
  const ratio = endpoint.rps / ceiling.rps;
  return {
    name: 'tokens',
    title: 'Token issuance',
    runs: [endpoint, ceiling],
    checks: [
      {
        what: `Token endpoint vs raw ${jwk.alg} signing rate`,
        value: `${fmt(endpoint.rps)} tokens/s`,
        reference: `${fmt(ceiling.rps)} signatures/s`,
        ratio: fmtRatio(ratio),
        target: '≥ 0.50×',
        met: ratio >= 0.5,
      },
    ],
    notes: [
      `The ceiling signs the signing input of a real access token (${header!.length + payload!.length + 1} bytes) with the issuer's active ${jwk.alg} key ` +
        `on ${workers} worker threads (one per core) for the same warm-up and duration, with nothing else running. ` +
        `The endpoint run rotates through ${fmt(clients.length)} clients with HTTP Basic authentication over ${settings.connections} connections, ` +
        `against ${fmt(settings.webConcurrency)} issuer worker process(es) (WEB_CONCURRENCY), with the client cache on (every client asks again within its TTL).`,
    ],
  };
}
