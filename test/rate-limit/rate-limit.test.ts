/**
 * Per-client rate limits (docs/api.md section 3): `RateLimit`/`RateLimit-Policy` headers (IETF
 * draft 8), 429 `rate_limit_error` with `Retry-After` once the budget is spent, budgets per client,
 * and one budget shared by several API instances through Redis (`REDIS_URL`).
 *
 * Extra API instances with a tiny budget run beside the suite's own (which has a large one).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import request from 'supertest';
import { REDIS_URL, canReachRedis } from './redis.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { freePort, startService, type RunningService } from '@dms/tools/processes';
import { API_URL, SERVICE_ENV, closeHarness, newTenant, signedInTenant, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

const started: RunningService[] = [];

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await closeHarness();
});

async function extraApi(env: Record<string, string>): Promise<RunningService> {
  const service = await startService('api', { ...SERVICE_ENV, ...env });
  started.push(service);
  return service;
}

const get = (base: string, token: string) => request(base).get('/organisations').set('Authorization', `Bearer ${token}`);

/** Parses `"client"; r=2; t=60` (or a policy `"client"; q=3; w=60`) into its parameters. */
function params(header: string | undefined): Record<string, string> {
  expect(header).toMatch(/^"client"(; [a-z]+=[^;]+)+$/);
  return Object.fromEntries(
    header!
      .split('; ')
      .slice(1)
      .map((p) => p.split('=') as [string, string]),
  );
}

const redisUp = await canReachRedis();

describe('headers', () => {
  test('every authenticated response announces the quota and the policy', async () => {
    const { tenant, token } = await signedInTenant();
    const res = await get(API_URL, token).expect(200);
    const limit = params(res.headers['ratelimit']);
    const policy = params(res.headers['ratelimit-policy']);
    expect(Number(policy.q)).toBe(100000);
    expect(Number(policy.w)).toBe(60);
    expect(Number(limit.r)).toBe(99999);
    expect(Number(limit.t)).toBeGreaterThan(0);
    expect(Number(limit.t)).toBeLessThanOrEqual(60);
    // The partition key is a hash, never the client id itself.
    expect(res.headers['ratelimit-policy']).not.toContain(tenant.clientId);
  });
});

describe('over the budget', () => {
  let small: RunningService;
  beforeAll(async () => {
    small = await extraApi({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_WINDOW_SECONDS: '60' });
  });

  test('the request after the budget is 429 rate_limit_error with Retry-After, in the error format', async () => {
    const { token } = await signedInTenant();
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await get(small.url, token).expect(200);
      remaining.push(Number(params(ok.headers['ratelimit']).r));
    }
    expect(remaining).toEqual([2, 1, 0]);

    const res = await get(small.url, token).expect(429);
    expect(res.body).toMatchObject({ object: 'error', type: 'rate_limit_error', code: 'rate_limited' });
    expect(res.body.request_id).toBe(res.headers['request-id']);
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(params(res.headers['ratelimit']).r)).toBe(0);
    expect(Number(params(res.headers['ratelimit-policy']).q)).toBe(3);
  });

  test('writes are limited too, and a limited write changes nothing', async () => {
    const tenant = await newTenant();
    const token = await tokenFor(tenant);
    for (let i = 0; i < 3; i++) await get(small.url, token).expect(200);
    const res = await request(small.url).post('/organisations').set('Authorization', `Bearer ${token}`).send({ name: 'Too many' }).expect(429);
    expect(res.body.code).toBe('rate_limited');
    const list = await get(API_URL, token).expect(200);
    expect(list.body.data).toEqual([]);
  });

  test('each client has its own budget', async () => {
    const a = await signedInTenant();
    const b = await signedInTenant();
    for (let i = 0; i < 3; i++) await get(small.url, a.token).expect(200);
    await get(small.url, a.token).expect(429);
    await get(small.url, b.token).expect(200);
  });

  test('requests without a valid token are refused before they count', async () => {
    const { token } = await signedInTenant();
    for (let i = 0; i < 4; i++) await request(small.url).get('/organisations').set('Authorization', 'Bearer not-a-token').expect(401);
    await get(small.url, token).expect(200);
  });
});

describe('several API instances', () => {
  if (!redisUp) {
    console.warn(`SKIPPED: shared rate-limit budget test: no Redis at ${REDIS_URL} (start redis-server to run it).`);
  }
  (redisUp ? test : test.skip)('share one budget per client through Redis (REDIS_URL)', async () => {
    const env = { REDIS_URL, RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_WINDOW_SECONDS: '60' };
    // One after the other: starting processes side by side only slows both on a small machine.
    const one = await extraApi(env);
    const two = await extraApi(env);
    const { token } = await signedInTenant();

    const seen: number[] = [];
    for (const instance of [one, two, one, two]) {
      const ok = await get(instance.url, token).expect(200);
      seen.push(Number(params(ok.headers['ratelimit']).r));
    }
    expect(seen).toEqual([3, 2, 1, 0]);
    for (const instance of [one, two]) {
      const res = await get(instance.url, token).expect(429);
      expect(res.body.code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});

const REDIS_SERVER = '/usr/bin/redis-server';

describe('when Redis fails', () => {
  if (!existsSync(REDIS_SERVER)) {
    console.warn(`SKIPPED: Redis outage test: ${REDIS_SERVER} is not installed.`);
  }
  (existsSync(REDIS_SERVER) ? test : test.skip)('requests pass unlimited and the failure is logged, rather than the API failing', async () => {
    // A private Redis this test may kill.
    const port = await freePort();
    const redis = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const exited = new Promise((r) => redis.once('exit', r));
    try {
      const url = `redis://127.0.0.1:${port}`;
      await eventually(() => canReachRedis(url), 'the private Redis to answer');
      const api = await extraApi({ REDIS_URL: url, RATE_LIMIT_PER_MINUTE: '2' });
      const { token } = await signedInTenant();
      const limited = await get(api.url, token).expect(200);
      expect(Number(params(limited.headers['ratelimit']).r)).toBe(1);

      redis.kill('SIGKILL');
      await exited;
      for (let i = 0; i < 3; i++) {
        const res = await get(api.url, token).expect(200);
        expect(res.headers['ratelimit']).toBeUndefined();
      }
      const log = await readFile(api.logFile, 'utf8');
      expect(log).toContain('error from store, allowing request without rate-limiting');
      expect(log).not.toContain(url);
    } finally {
      redis.kill('SIGKILL');
    }
  });
});
