/**
 * The system under test: a freshly recreated benchmark database with the schema migrated, the
 * built services started as child processes on loopback (as in production: NODE_ENV=production,
 * info-level request logs), tenants and OAuth clients created through the issuer's domain code,
 * and tokens from the real token endpoint.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createDb, migrateLatest, type Knex } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createClient } from '@dms/auth/domain';
import { createTenant } from '@dms/domain/tenants';
import { usePersonalDataBox } from '@dms/domain/kernel';
import { REPO_ROOT, freePort, startService, type RunningService, type ServiceName } from '../processes.js';
import { memoryOf, type Memory } from './proc.js';
import type { BenchSettings } from './settings.js';

/** A tenant with one OAuth client allowed every scope. */
export interface BenchTenant {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** Where the child services write their logs during a run. */
export const BENCH_LOG_DIR = join(REPO_ROOT, '.data', 'bench', 'logs');

/**
 * Environment that makes a service record a CPU profile into `dir` (see cpu-prof-preload.ts).
 * `--cpu-prof` itself is refused in NODE_OPTIONS, `--import` is not.
 */
export function cpuProfileEnv(dir: string): Record<string, string> {
  const preload = new URL('./cpu-prof-preload.js', import.meta.url).href;
  return { NODE_OPTIONS: `--import=${preload}`, BENCH_CPU_PROF_DIR: dir };
}

/** Drops and recreates the benchmark database, then applies every migration. */
async function recreateDatabase(settings: BenchSettings): Promise<void> {
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${settings.databaseName} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${settings.databaseName}`);
  } finally {
    await admin.end();
  }
  const db = createDb(settings.databaseUrl, 1);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

/** The running system of one benchmark run: database pool, environment, issuer, API and extra services. */
export class Stack {
  readonly db: Knex;
  readonly env: Record<string, string>;
  readonly box: SecretBox;
  readonly auth: RunningService;
  readonly api: RunningService;
  readonly #extra: Array<{ label: string; service: RunningService }> = [];
  /** Peak memory of services already stopped, read just before they were stopped. */
  readonly stoppedMemory: Array<{ label: string; memory: Memory }> = [];

  private constructor(db: Knex, env: Record<string, string>, auth: RunningService, api: RunningService) {
    this.db = db;
    this.env = env;
    this.box = new SecretBox(env.SECRETS_KEY!);
    // Scenarios write customers through the domain library, which seals their dates of birth.
    usePersonalDataBox(this.box);
    this.auth = auth;
    this.api = api;
  }

  /** Recreates the database and starts the issuer and the API. */
  static async start(settings: BenchSettings): Promise<Stack> {
    await recreateDatabase(settings);
    const authPort = await freePort();
    const apiPort = await freePort();
    const env: Record<string, string> = {
      DATABASE_URL: settings.databaseUrl,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      AUTH_ISSUER: `http://127.0.0.1:${authPort}`,
      API_AUDIENCE: `http://127.0.0.1:${apiPort}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      // The webhook scenario delivers to a receiver on loopback.
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      // One client sends thousands of requests a second here; the per-client limit is a product
      // policy, not a cost being measured, so it is lifted (its bookkeeping still runs).
      RATE_LIMIT_PER_MINUTE: String(1e9),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      TEST_LOG_DIR: BENCH_LOG_DIR,
      ...(settings.cpuProfileDir ? cpuProfileEnv(settings.cpuProfileDir) : {}),
    };
    // startService writes child logs under the harness's TEST_LOG_DIR.
    process.env.TEST_LOG_DIR ??= BENCH_LOG_DIR;
    if (settings.cpuProfileDir) mkdirSync(settings.cpuProfileDir, { recursive: true });
    const db = createDb(settings.databaseUrl, 4);
    // The HTTP services run one worker per core unless BENCH_WEB_CONCURRENCY says otherwise; the
    // bare ceiling server runs the same number, so each ratio compares like with like.
    const workers = { WEB_CONCURRENCY: String(settings.webConcurrency) };
    const auth = await startService('auth', { ...env, ...workers }, authPort);
    const api = await startService('api', { ...env, ...workers }, apiPort);
    return new Stack(db, env, auth, api);
  }

  /**
   * Starts another service process (a dispatcher, a profiled API) that `stopExtra()`/`stop()` stop.
   * @param label name of the process in the memory report
   */
  async startService(name: ServiceName, label: string, extraEnv: Record<string, string> = {}): Promise<RunningService> {
    const service = await startService(name, { ...this.env, ...extraEnv });
    this.#extra.push({ label, service });
    return service;
  }

  /** Creates a tenant and a client allowed every scope. */
  async newTenant(name: string): Promise<BenchTenant> {
    const tenant = await createTenant(this.db, name);
    const client = await createClient(
      this.db,
      this.box,
      { issuer: this.env.AUTH_ISSUER!, audience: this.env.API_AUDIENCE! },
      { tenantId: tenant.id, name: 'bench' },
    );
    return { tenantId: tenant.id, clientId: client.client_id, clientSecret: client.client_secret };
  }

  /** The form body of a client-credentials token request for the API's audience. */
  tokenRequestBody(): string {
    return new URLSearchParams({ grant_type: 'client_credentials', audience: this.env.API_AUDIENCE! }).toString();
  }

  /**
   * Obtains an access token for `tenant` from the token endpoint (client_secret_basic).
   * @throws when the issuer does not answer 200
   */
  async token(tenant: BenchTenant): Promise<string> {
    const res = await fetch(`${this.auth.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(tenant), 'content-type': 'application/x-www-form-urlencoded' },
      body: this.tokenRequestBody(),
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  /**
   * Calls the API as `token`'s client with a JSON body (and extra `headers`, e.g. Idempotency-Key).
   * @returns the parsed JSON response
   * @throws when the API answers 300 or above (the message names the request and the response)
   */
  async request(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /**
   * Stops the extra services started with `startService` (the issuer and API keep running),
   * recording their peak memory first.
   */
  async stopExtra(): Promise<void> {
    const extra = this.#extra.splice(0);
    for (const { label, service } of extra) {
      if (service.child.pid && service.child.exitCode === null) this.stoppedMemory.push({ label, memory: memoryOf(service.child.pid) });
    }
    await Promise.all(extra.map(({ service }) => service.stop()));
  }

  /** Stops every service and closes the pool. */
  async stop(): Promise<void> {
    await this.stopExtra();
    await Promise.all([this.auth.stop(), this.api.stop()]);
    await this.db.destroy();
  }
}

/** RFC 7617 Basic credentials of a client (RFC 6749 section 2.3.1: form-urlencoded first). */
export function basicAuth(t: BenchTenant): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(t.clientId)}:${encodeURIComponent(t.clientSecret)}`).toString('base64')}`;
}
