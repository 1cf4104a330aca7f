/**
 * Time limits of the database pools (docs/api.md section 3, error `service_unavailable`): a table
 * held by another connection's ACCESS EXCLUSIVE lock, and an API whose connection pool is used up,
 * each answer within seconds with 503 `service_unavailable` and `Retry-After`, never after a
 * minute; and the API serves again as soon as the lock is gone.
 *
 * Locking `debts` would stall every other test file, so the extra API instances here run on a
 * database of their own (created and dropped by this file), with tokens from the suite's issuer.
 */
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDb, poolTimeoutsFromEnv } from '@dms/db';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { createOwnDatabase, type OwnDatabase } from '../support/own-database.js';

let own: OwnDatabase;
let url: string;
let token: string;

function extraApi(env: Record<string, string> = {}): Promise<RunningService> {
  return own.startApi(env);
}

/** Another session holding `LOCK TABLE <table> IN ACCESS EXCLUSIVE MODE` until released. */
async function lockTable(table: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

/** GET `path` of `base` while `debts` is locked by another session; the lock is released after. */
async function getWhileDebtsLocked(base: string, path = '/debts') {
  const release = await lockTable('debts');
  try {
    return await timedGet(base, path);
  } finally {
    await release();
  }
}

/** GET `path` with the test token; resolves with the response and the seconds it took. */
async function timedGet(base: string, path: string) {
  const t0 = performance.now();
  const res = await request(base).get(path).set('Authorization', `Bearer ${token}`);
  return { res, seconds: (performance.now() - t0) / 1000 };
}

function expectBusy(res: request.Response): void {
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ object: 'error', type: 'api_error', code: 'service_unavailable' });
  expect(res.body.message).toMatch(/retry after \d+ s/);
  expect(res.body.request_id).toBe(res.headers['request-id']);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

beforeAll(async () => {
  own = await createOwnDatabase('timeouts');
  url = own.url;
  ({ token } = await signedInTenant());
});

afterAll(async () => {
  await own?.drop();
  await closeHarness();
});

describe('pool settings', () => {
  test('every pooled connection carries statement_timeout and lock_timeout (defaults 30 s and 5 s; the environment overrides)', async () => {
    expect(poolTimeoutsFromEnv({})).toEqual({ statementTimeoutMs: 30_000, lockTimeoutMs: 5_000, acquireTimeoutMs: 3_000 });
    const db = createDb(url, 1, poolTimeoutsFromEnv({ DATABASE_STATEMENT_TIMEOUT_MS: '1234', DATABASE_LOCK_TIMEOUT_MS: '567' }));
    try {
      const { rows } = await db.raw(`SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock`);
      expect(rows[0]).toEqual({ statement: '1234ms', lock: '567ms' });
    } finally {
      await db.destroy();
    }
  });

  test('a malformed setting stops the API at start with one line naming it', async () => {
    await expect(extraApi({ DATABASE_LOCK_TIMEOUT_MS: 'soon' })).rejects.toThrow(/exited with code 1/);
  });
});

describe('a table locked by another session', () => {
  let defaults: RunningService;
  let statementLimited: RunningService;
  beforeAll(async () => {
    [defaults, statementLimited] = await Promise.all([
      extraApi(),
      // lock_timeout off: only statement_timeout can end the wait.
      extraApi({ DATABASE_LOCK_TIMEOUT_MS: '0', DATABASE_STATEMENT_TIMEOUT_MS: '1000' }),
    ]);
  });

  test('with the default settings the request answers 503 after the lock timeout (5 s), not a minute; then serves again', async () => {
    const busy = await getWhileDebtsLocked(defaults.url);
    expectBusy(busy.res);
    expect(busy.seconds).toBeGreaterThanOrEqual(4.5);
    expect(busy.seconds).toBeLessThan(10);
    process.stdout.write(`locked debts, default settings: 503 after ${busy.seconds.toFixed(2)} s\n`);

    const after = await timedGet(defaults.url, '/debts');
    expect(after.res.status).toBe(200);
  });

  test('statement_timeout ends the wait as well (lock_timeout off, statement_timeout 1 s)', async () => {
    const busy = await getWhileDebtsLocked(statementLimited.url);
    expectBusy(busy.res);
    expect(busy.seconds).toBeGreaterThanOrEqual(0.9);
    expect(busy.seconds).toBeLessThan(5);
    expect((await timedGet(statementLimited.url, '/debts')).res.status).toBe(200);
  });
});

describe('an exhausted connection pool', () => {
  test('a request that finds no free connection answers 503 after the acquire timeout (3 s); the API serves again once the connection is free', async () => {
    // One connection, and long database limits, so the first request keeps it while it waits.
    const api = await extraApi({ DATABASE_POOL_MAX: '1', DATABASE_LOCK_TIMEOUT_MS: '60000', DATABASE_STATEMENT_TIMEOUT_MS: '60000' });
    const release = await lockTable('debts');
    let holder: Promise<{ res: request.Response; seconds: number }> | undefined;
    let busy;
    try {
      holder = timedGet(api.url, '/debts');
      await new Promise((r) => setTimeout(r, 500));
      busy = await timedGet(api.url, '/customers');
    } finally {
      await release();
    }
    expectBusy(busy.res);
    expect(busy.seconds).toBeGreaterThanOrEqual(2.5);
    expect(busy.seconds).toBeLessThan(8);
    process.stdout.write(`exhausted pool: 503 after ${busy.seconds.toFixed(2)} s\n`);
    // The holder itself may also need a second connection (a list runs its count beside the page)
    // and get the same 503; either way it answers as soon as the lock is gone.
    expect([200, 503]).toContain((await holder).res.status);
    expect((await timedGet(api.url, '/customers')).res.status).toBe(200);
  });
});
