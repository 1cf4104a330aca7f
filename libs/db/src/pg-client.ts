/**
 * The Knex client of every pool `createDb` makes: Knex's own PostgreSQL client, with
 * - commits in doubt turned into errors: a commit whose wait for the synchronous standby was
 *   cancelled (`pg_cancel_backend`, a cancel request) is reported by PostgreSQL as a success with
 *   a WARNING, though only the primary has it; such a statement rejects with
 *   SyncCommitUncertainError instead, so no caller reports a write that a failover could lose;
 * - failures to open a connection marked (`CONNECTING`): the statement never reached the server;
 * - behind a transaction-mode pooler (`pooler: 'transaction'`), each new connection checks that
 *   the sessions it gets run in UTC: the role's default must carry `TimeZone`, since such a pooler
 *   passes no start-up setting (deploy/README.md, "High availability").
 */
import type pg from 'pg';
import PostgresClient, { type KnexQueryObject } from 'knex/lib/dialects/postgres/index.js';
import { CONNECTING, SyncCommitUncertainError, isSyncWaitCancelled } from './errors.js';

/** What DATABASE_URL leads to (`DATABASE_POOLER`). */
export type Pooler = 'none' | 'transaction';

/** Set on a connection by its `notice` listener when the current statement's sync wait was cancelled. */
const SYNC_WAIT_CANCELLED = Symbol('dms.db.syncWaitCancelled');
type Watched = pg.Client & { [SYNC_WAIT_CANCELLED]?: boolean };

/** Raised when a pooled session does not run in UTC behind a transaction pooler. */
export class SessionTimeZoneError extends Error {
  constructor(zone: string) {
    super(
      `sessions run in TimeZone ${zone}, not UTC: behind a transaction pooler the database role must carry it (ALTER ROLE … SET timezone = 'UTC'; deploy/README.md, "High availability")`,
    );
    this.name = 'SessionTimeZoneError';
  }
}

/**
 * The Knex client class for a pool (Knex's `client` option).
 * @param pooler `transaction`: check each new connection's TimeZone (see the module comment)
 */
export function pgClientClass(pooler: Pooler): new (config: object) => object {
  return class DmsPostgresClient extends PostgresClient {
    override async acquireRawConnection(): Promise<pg.Client> {
      let connection: Watched;
      try {
        connection = await super.acquireRawConnection();
      } catch (err) {
        if (err && typeof err === 'object') (err as { [CONNECTING]?: boolean })[CONNECTING] = true;
        throw err;
      }
      connection.on('notice', (notice) => {
        if (isSyncWaitCancelled(notice)) connection[SYNC_WAIT_CANCELLED] = true;
      });
      if (pooler === 'transaction') {
        const { rows } = await connection.query<{ zone: string }>(`SELECT current_setting('TimeZone') AS zone`);
        if (rows[0]?.zone !== 'UTC' && rows[0]?.zone !== 'Etc/UTC') {
          await connection.end().catch(() => {});
          throw new SessionTimeZoneError(String(rows[0]?.zone));
        }
      }
      return connection;
    }

    override async _query(connection: Watched, obj: KnexQueryObject): Promise<KnexQueryObject> {
      connection[SYNC_WAIT_CANCELLED] = false;
      const done = await super._query(connection, obj);
      // The NoticeResponse precedes the statement's CommandComplete, so the flag is set by now.
      if (connection[SYNC_WAIT_CANCELLED]) throw new SyncCommitUncertainError();
      return done;
    }
  };
}
