/**
 * How database errors are read (libs/db errors.ts): which mean "no primary now, retry shortly"
 * (503 with Retry-After), which certainly never reached the server, and the WARNING of a commit
 * whose wait for the synchronous standby was cancelled. Plus `retryWhileUnavailable`.
 */
import { describe, expect, test } from '@jest/globals';
import knexFactory from 'knex';
import {
  isDatabaseBusy,
  isDatabaseUnavailable,
  isSyncWaitCancelled,
  isTransactionConflict,
  neverReachedDatabase,
  retryWhileUnavailable,
  SyncCommitUncertainError,
} from '@dms/db';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable / isDatabaseBusy', () => {
  test.each([
    ['admin shutdown (a primary stopping)', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', withCode('57P02')],
    ['starting up or in recovery', withCode('57P03', 'the database system is starting up')],
    ['read-only (a demoted primary)', withCode('25006', 'cannot execute INSERT in a read-only transaction')],
    ['connection failure', withCode('08006')],
    ["PgBouncer's query_wait_timeout", withCode('08P01', 'query_wait_timeout')],
    ['too many connections', withCode('53300')],
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['DNS not answering (a Service during a failover)', withCode('EAI_AGAIN')],
    ['a connection that ended under a query (Knex prefixes the SQL)', new Error('insert into "debts" - Connection terminated unexpectedly')],
    ['refused on every address', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])],
    ['a connect that timed out (connectionTimeoutMillis)', new Error('timeout expired')],
    ['a commit in doubt', new SyncCommitUncertainError()],
  ])('%s: unavailable and busy', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseBusy(err)).toBe(true);
  });

  test.each([
    ['statement_timeout', withCode('57014')],
    ['lock_timeout', withCode('55P03')],
    ['no free pooled connection', new knexFactory.KnexTimeoutError('Knex: Timeout acquiring a connection.')],
    ['a deadlock victim, still after its retries', withCode('40P01')],
    ['a serialization failure, still after its retries', withCode('40001')],
  ])('%s: busy, not unavailable', (_what, err) => {
    expect(isDatabaseBusy(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  test.each([
    ['a deadlock victim', withCode('40P01'), true],
    ['a serialization failure', withCode('40001'), true],
    ['a unique violation', withCode('23505'), false],
    ['lock_timeout', withCode('55P03'), false],
  ])('isTransactionConflict: %s', (_what, err, conflict) => {
    expect(isTransactionConflict(err)).toBe(conflict);
  });

  test.each([
    ['a unique violation', withCode('23505')],
    ['a check violation', withCode('23514')],
    ['a syntax error', withCode('42601')],
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['nothing', undefined],
    ['a string', 'Connection terminated'],
  ])('%s: neither', (_what, err) => {
    expect(isDatabaseBusy(err)).toBe(false);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

test('neverReachedDatabase: only errors raised before the statement was sent', () => {
  expect(neverReachedDatabase(new knexFactory.KnexTimeoutError('Knex: Timeout acquiring a connection.'))).toBe(true);
  expect(neverReachedDatabase(withCode('08P01', 'query_wait_timeout'))).toBe(true);
  expect(neverReachedDatabase(withCode('08P01', 'server login has been failing, try again later (server_login_retry)'))).toBe(true);
  // A lost connection or a shutdown may strike after the server committed: in doubt.
  expect(neverReachedDatabase(new Error('Connection terminated unexpectedly'))).toBe(false);
  expect(neverReachedDatabase(withCode('57P01'))).toBe(false);
  expect(neverReachedDatabase(new SyncCommitUncertainError())).toBe(false);
});

test('isSyncWaitCancelled: the WARNING of a cancelled wait for the synchronous standby, and nothing else', () => {
  expect(
    isSyncWaitCancelled({
      severity: 'WARNING',
      message: 'canceling wait for synchronous replication due to user request',
      detail: 'The transaction has already committed locally, but might not have been replicated to the standby.',
    }),
  ).toBe(true);
  expect(
    isSyncWaitCancelled({
      severity: 'WARNING',
      message: 'canceling the wait for synchronous replication and terminating connection due to administrator command',
    }),
  ).toBe(true);
  expect(isSyncWaitCancelled({ severity: 'NOTICE', message: 'relation "x" already exists, skipping' })).toBe(false);
  expect(isSyncWaitCancelled({ severity: 'WARNING', message: 'there is no transaction in progress' })).toBe(false);
});

describe('retryWhileUnavailable', () => {
  test('retries while the database is unavailable, then returns the result', async () => {
    let calls = 0;
    const result = await retryWhileUnavailable(
      async () => {
        if (++calls < 3) throw withCode('57P03', 'the database system is starting up');
        return 'done';
      },
      { delayMs: 1, withinMs: 1_000 },
    );
    expect([result, calls]).toEqual(['done', 3]);
  });

  test('rethrows any other error at once', async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw withCode('23505');
    };
    await expect(retryWhileUnavailable(failing, { delayMs: 1 })).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
  });

  test('gives up after withinMs with the last error', async () => {
    let calls = 0;
    const down = async () => {
      calls++;
      throw withCode('ECONNREFUSED');
    };
    await expect(retryWhileUnavailable(down, { delayMs: 20, withinMs: 100 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(10);
  });
});
