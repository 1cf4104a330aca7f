/**
 * What a database error means for the caller: the database could not serve now but is likely to
 * shortly (time limits, or no primary during a failover: answer 503 and retry), and whether a
 * failed statement may still have been carried out (a write "in doubt").
 */
import knexFactory from 'knex';

/**
 * A commit whose wait for the synchronous standby was cancelled (`pg_cancel_backend`, a client's
 * cancel request; `statement_timeout` does not apply to that wait): PostgreSQL then reports
 * success with a WARNING although the transaction may exist on the primary alone, and is lost if
 * the primary is lost (PostgreSQL docs, "synchronous_commit").
 * Raised by the pools of `createDb` in place of that success; the write is in doubt.
 */
export class SyncCommitUncertainError extends Error {
  /** Not a SQLSTATE: PostgreSQL reported success. */
  readonly code = 'DMS_SYNC_COMMIT_UNCERTAIN';
  constructor() {
    super('the commit was not confirmed by the synchronous standby (its wait was cancelled); it may be lost in a failover');
    this.name = 'SyncCommitUncertainError';
  }
}

/** Marker set on errors raised while a pool connection was being opened (nothing was sent). */
export const CONNECTING = Symbol('dms.db.connecting');

/**
 * SQLSTATEs of "no usable primary": class 08 (connection exception; PgBouncer reports its own
 * failures as 08P01), 57P01-57P03 (shutdown, crash, starting up or in recovery), 25006 (read-only:
 * a demoted primary or a replica), 53300 (too many connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|25006|53300)$/;
/** Socket errors of a lost or refused connection (system error codes of Node.js). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/**
 * node-postgres reports a connection that ended under a query, or a connect that timed out
 * (`connectionTimeoutMillis`: "timeout expired"), without a code.
 */
const LOST_CONNECTION = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|^timeout expired$/;
/** PgBouncer errors raised before it handed the statement to any server (08P01 too). */
const POOLER_NOT_SENT = /query_wait_timeout|server login has been failing|no more connections allowed|pgbouncer cannot connect to server/;

const codeOf = (err: object) => (err as { code?: unknown }).code;
const messageOf = (err: object) => {
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' ? message : '';
};

/**
 * True when `err` means no primary could serve: refused or lost connections, a server shutting
 * down, starting or in recovery, a read-only server, the pooler's own connection failures, or a
 * commit in doubt (SyncCommitUncertainError). During a failover every statement fails like this
 * until a new primary is elected (deploy/README.md, "High availability").
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof SyncCommitUncertainError) return true;
  const code = codeOf(err);
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code))) return true;
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return LOST_CONNECTION.test(messageOf(err));
}

/**
 * True when `err` ended a transaction that collided with another and was rolled back whole:
 * chosen as a deadlock's victim (40P01) or a serialization failure (40001). Running the whole
 * transaction again is the remedy PostgreSQL prescribes (its docs, "Deadlocks"); `createDb`'s
 * pools do it for top-level transactions (conflicts.ts).
 */
export function isTransactionConflict(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = codeOf(err);
  return code === '40P01' || code === '40001';
}

/**
 * True when `err` means the database could not serve in time or at all right now: no free pooled
 * connection (`KnexTimeoutError`), `statement_timeout` or a cancel (57014), `lock_timeout`
 * (55P03), a transaction conflict still failing after its retries (`isTransactionConflict`), or
 * no primary (`isDatabaseUnavailable`). Callers answer these as "unavailable, retry shortly" (503
 * with `Retry-After`, docs/api.md section 3) rather than as a fault.
 */
export function isDatabaseBusy(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof knexFactory.KnexTimeoutError) return true;
  const code = codeOf(err);
  return code === '57014' || code === '55P03' || isTransactionConflict(err) || isDatabaseUnavailable(err);
}

/**
 * True when the failed statement certainly never reached PostgreSQL, so nothing of it can have
 * been carried out: no pooled connection in time, a connection that could not be opened, or a
 * pooler that found no server for it. False means "in doubt" when the statement wrote: it may have
 * committed although its caller saw an error.
 */
export function neverReachedDatabase(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof knexFactory.KnexTimeoutError || (err as { [CONNECTING]?: boolean })[CONNECTING]) return true;
  return POOLER_NOT_SENT.test(messageOf(err));
}

/**
 * True when a NoticeResponse (node-postgres `notice` event) says that a commit stopped waiting
 * for the synchronous standby but committed locally: the WARNING "canceling wait for synchronous
 * replication due to user request" (SQLSTATE 01000, then success), and the one sent before a
 * termination ("… and terminating connection …", then the connection ends anyway). Matched on
 * its text, as the server sends it (lc_messages C or English).
 */
export function isSyncWaitCancelled(notice: { severity?: string; message?: string; detail?: string }): boolean {
  return (
    /canceling (the )?wait for synchronous replication/.test(notice.message ?? '') ||
    /committed locally, but might not have been replicated/.test(notice.detail ?? '')
  );
}
