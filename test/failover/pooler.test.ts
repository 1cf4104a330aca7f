/**
 * Services behind a transaction-mode pooler (`DATABASE_POOLER=transaction`, deploy/README.md,
 * "High availability"): such a pooler (PgBouncer before 1.21) passes no start-up setting and keeps
 * no named statement from one transaction to the next. So the pools send no session settings at
 * connect and rely on the role's defaults (and refuse sessions that would not run in UTC), and the
 * API sends its list statements unnamed. Checked on a database of this file's own (its defaults are
 * changed), with a proxy that records the statement names the API prepares.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDb, ensureDatabase, migrateLatest, namedStatementsAllowed, poolTimeoutsFromEnv, SessionTimeZoneError } from '@dms/db';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, signedInTenant } from '../support/harness.js';
import { startDbProxy, type DbProxy } from '../support/db-proxy.js';

const testUrl = new URL(process.env.TEST_DATABASE_URL!);
const database = `${testUrl.pathname.slice(1)}_pooler_${randomBytes(3).toString('hex')}`;
const adminUrl = Object.assign(new URL(testUrl.href), { pathname: '/postgres' }).href;
const url = Object.assign(new URL(testUrl.href), { pathname: `/${database}` }).href;

const started: Array<RunningService | DbProxy> = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `current_setting` of each name in a session of a fresh pool. */
async function sessionSettings(pooler: 'none' | 'transaction', names: string[]): Promise<Record<string, string>> {
  const db = createDb(url, 1, poolTimeoutsFromEnv({}), pooler);
  try {
    const select = names.map((n, i) => `current_setting('${n}') AS s${i}`).join(', ');
    const { rows } = await db.raw(`SELECT ${select}`);
    return Object.fromEntries(names.map((n, i) => [n, rows[0][`s${i}`]]));
  } finally {
    await db.destroy();
  }
}

beforeAll(async () => {
  await ensureDatabase(adminUrl, database);
  const db = createDb(url, 1);
  await migrateLatest(db);
  await db.destroy();
}, 180_000); // a fresh database migrated from nothing: slow beside a CPU hog

afterAll(async () => {
  for (const s of started.reverse()) await ('stop' in s ? s.stop() : s.close());
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await closeHarness();
});

describe('session settings', () => {
  test('DATABASE_POOLER: named statements only without a transaction pooler', () => {
    expect(namedStatementsAllowed({})).toBe(true);
    expect(namedStatementsAllowed({ DATABASE_POOLER: 'none' })).toBe(true);
    expect(namedStatementsAllowed({ DATABASE_POOLER: 'transaction' })).toBe(false);
    expect(() => namedStatementsAllowed({ DATABASE_POOLER: 'session-ish' })).toThrow(/DATABASE_POOLER/);
  });

  test('behind a transaction pooler a session not in UTC is refused with what to change', async () => {
    await admin(`ALTER DATABASE "${database}" SET timezone TO 'America/New_York'`);
    const db = createDb(url, 1, poolTimeoutsFromEnv({}), 'transaction');
    try {
      await expect(db.raw('SELECT 1')).rejects.toThrow(SessionTimeZoneError);
      await expect(db.raw('SELECT 1')).rejects.toThrow(/ALTER ROLE .* SET timezone = 'UTC'/);
    } finally {
      await db.destroy();
    }
    // Without a pooler the start-up options set UTC whatever the defaults.
    expect(await sessionSettings('none', ['TimeZone'])).toEqual({ TimeZone: 'UTC' });
  });

  test("behind a transaction pooler the role's or database's defaults rule; without one, the environment's limits are sent at connect", async () => {
    await admin(`ALTER DATABASE "${database}" SET timezone TO 'UTC'`);
    await admin(`ALTER DATABASE "${database}" SET statement_timeout TO '4321ms'`);
    await admin(`ALTER DATABASE "${database}" SET lock_timeout TO '321ms'`);
    const names = ['TimeZone', 'statement_timeout', 'lock_timeout'];
    expect(await sessionSettings('transaction', names)).toEqual({ TimeZone: 'UTC', statement_timeout: '4321ms', lock_timeout: '321ms' });
    expect(await sessionSettings('none', names)).toEqual({ TimeZone: 'UTC', statement_timeout: '30s', lock_timeout: '5s' });
  });
});

describe('the API behind a transaction pooler', () => {
  test('sends its list statements unnamed; without the setting it prepares them under names', async () => {
    await admin(`ALTER DATABASE "${database}" SET timezone TO 'UTC'`);
    const { token } = await signedInTenant();
    const run = async (env: Record<string, string>) => {
      const proxy = await startDbProxy(url);
      started.push(proxy);
      const api = await startService('api', { ...SERVICE_ENV, DATABASE_URL: proxy.via(url), ...env });
      started.push(api);
      for (const path of ['/debts?limit=5', '/payments?limit=5', '/debts?limit=5']) {
        const res = await request(api.url).get(path).set('Authorization', `Bearer ${token}`);
        expect([path, res.status]).toEqual([path, 200]);
      }
      return proxy;
    };
    const pooled = await run({ DATABASE_POOLER: 'transaction' });
    expect([...pooled.preparedNames]).toEqual([]);
    expect(pooled.unnamedParses).toBeGreaterThan(0);
    const direct = await run({});
    expect(direct.preparedNames.size).toBeGreaterThan(0);
  });
});
