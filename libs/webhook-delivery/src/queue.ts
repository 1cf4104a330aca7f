/**
 * The delivery queue in PostgreSQL (table `webhook_deliveries`, migration 004_webhooks): the SQL
 * of the moves in states.ts, and nowhere else.
 *
 * A pending row is due when `next_attempt_at <= now()`. `claimDue` takes due rows with
 * `FOR UPDATE SKIP LOCKED` (concurrent dispatchers never block on or take the same row) and leases
 * them: `next_attempt_at` moves to the end of the lease and a fresh `lease_token` is set. Every
 * later write about the attempt is conditional on that token, so a dispatcher whose lease ran out
 * (it hung or was killed, and another one took the row over) can no longer change it, and an
 * attempt is recorded at most once (primary key delivery + attempt number + the delivery's
 * `created_at`, the partition key of migration 021).
 */
import type { Knex } from '@dms/db';
import type { WebhookDeliveryRow } from './rows.js';
import { STORED_STATUS, type DeliveryState } from './states.js';

/** A claimed delivery (state `delivering`). */
export interface ClaimedDelivery extends Pick<WebhookDeliveryRow, 'id' | 'tenant_id' | 'endpoint_id' | 'event_id' | 'created_at'> {
  /** Number of this attempt over the delivery's life (1-based; the attempt log's key). */
  attempt: number;
  /** Number of this attempt within the current retry schedule (1-based; a requeue starts a new one). */
  step: number;
  lease_token: string;
  /** Set when the previous claim's lease expired without a recorded result (move `reclaim`). */
  interrupted: boolean;
  /**
   * `created_at` as PostgreSQL's text, to the microsecond (a `Date` keeps milliseconds): with `id`
   * the primary key, so writes about the attempt probe one index entry per partition.
   */
  created_at_exact: string;
}

/** What the queue needs to know about the process. */
export interface QueueOptions {
  /** How long a claim holds a row, seconds. */
  leaseSeconds: number;
  /** Only these tenants' deliveries (empty = all). */
  tenantIds: readonly string[];
}

/** The states an attempt can end a delivery in (moves `succeed`, `retry`, `exhaust`). */
export type AttemptEnd = Extract<DeliveryState, 'succeeded' | 'retry_scheduled' | 'exhausted'>;

/** What an attempt got back, as recorded. */
export interface AttemptResponse {
  /** The receiver's HTTP status; null when no response arrived. */
  responseStatus: number | null;
  /** Secret-free reason of a failure; null on success. */
  error: string | null;
  durationMs: number;
}

/** The recorded outcome of an attempt. */
export interface AttemptRecord extends AttemptResponse {
  to: AttemptEnd;
  startedAt: Date;
  /** When the next attempt is due; used only with `to: 'retry_scheduled'`. */
  nextAttemptAt: Date | null;
}

const INTERRUPTED = 'interrupted: the dispatcher stopped before recording a result; sent again';

function tenantFilter(q: Knex.QueryBuilder, opts: QueueOptions): void {
  if (opts.tenantIds.length) q.whereIn('tenant_id', opts.tenantIds as string[]);
}

/**
 * Claims up to `limit` due deliveries for this process (moves `claim` and `reclaim`).
 * An interrupted previous attempt (its lease expired) is recorded as failed in the same
 * statement, so every attempt that may have reached the receiver appears in the history.
 */
export async function claimDue(db: Knex, opts: QueueOptions, limit: number): Promise<ClaimedDelivery[]> {
  const due = db('webhook_deliveries')
    .select('id', 'created_at', 'lease_token as stale_lease')
    .where('status', 'pending')
    .where('next_attempt_at', '<=', db.fn.now())
    .orderBy('next_attempt_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  tenantFilter(due, opts);
  // One statement (one round trip, atomic without BEGIN/COMMIT). Its commit waits for the WAL
  // flush: a claim must survive a database crash, so that every send follows a durable claim.
  const { rows } = await db.raw(
    `WITH due AS ?,
     claimed AS (
       UPDATE webhook_deliveries d
          SET next_attempt_at = now() + make_interval(secs => ?),
              lease_token = gen_random_uuid(),
              attempt_count = d.attempt_count + 1,
              updated_at = now()
         FROM due
        -- The whole primary key: with the id alone the planner may hash the whole table instead.
        WHERE d.id = due.id AND d.created_at = due.created_at
    RETURNING d.id, d.tenant_id, d.endpoint_id, d.event_id, d.attempt_count AS attempt, d.attempt_count - d.schedule_base AS step,
              d.lease_token, d.created_at, d.created_at::text AS created_at_exact,
              due.stale_lease IS NOT NULL AS interrupted),
     recorded AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status, error, started_at, next_attempt_at, delivery_created_at)
       SELECT id, attempt - 1, 'failed', ?, now(), now(), created_at FROM claimed WHERE interrupted
       ON CONFLICT (delivery_id, attempt, delivery_created_at) DO NOTHING)
     SELECT * FROM claimed`,
    [due, opts.leaseSeconds, INTERRUPTED],
  );
  return rows as ClaimedDelivery[];
}

/**
 * Records attempt `d.attempt` and moves the delivery to `r.to`: succeeded, pending again (retry at
 * `r.nextAttemptAt`), or failed (schedule exhausted). `recordAttempts` with one entry.
 * @returns false when the lease was lost (nothing written)
 */
export async function recordAttempt(db: Knex, d: ClaimedDelivery, r: AttemptRecord): Promise<boolean> {
  const [recorded] = await recordAttempts(db, [{ delivery: d, record: r }]);
  return recorded!;
}

/** One finished attempt to record: the claimed delivery and its outcome. */
export interface FinishedAttempt {
  delivery: ClaimedDelivery;
  record: AttemptRecord;
}

/**
 * Records finished attempts, each moving its delivery to `record.to` (as `recordAttempt`), in one
 * statement and one transaction for the whole batch.
 *
 * Each UPDATE is conditional on the delivery's lease, and an attempt row is inserted only for the
 * rows it moved, so an attempt is recorded at most once. Rows are matched on the whole primary
 * key (index probes, not a hash of the table). Nothing is written to the endpoint
 * row: every attempt to one endpoint would queue on its lock until COMMIT (`disableIfFailing`
 * reads successes from the deliveries instead).
 *
 * The commit does not wait for its WAL flush (`synchronous_commit = off`, local to this
 * transaction). Delivery is at least once (docs/api.md section 7): a database crash can lose the
 * last fraction of a second of recorded results; those deliveries are then still leased (their
 * claim was committed durably before the send, and WAL is replayed in order, so a lost claim
 * implies a lost result, never the reverse), and when the lease runs out another claim records
 * the attempt as interrupted and sends them again with the same `webhook-id`. Nothing is marked
 * succeeded without having been sent, as the result is written only after the send.
 * @returns for each entry, in order, false when its lease was lost (nothing written for it)
 */
export async function recordAttempts(db: Knex, batch: readonly FinishedAttempt[]): Promise<boolean[]> {
  if (!batch.length) return [];
  // One JSON parameter carries the whole batch (Knex would expand an array binding into a list).
  const entries = batch.map(({ delivery: d, record: r }) => ({
    id: d.id,
    created_at: d.created_at_exact,
    lease_token: d.lease_token,
    attempt: d.attempt,
    status: STORED_STATUS[r.to],
    attempt_status: r.to === 'succeeded' ? 'succeeded' : 'failed',
    response_status: r.responseStatus,
    error: r.error,
    duration_ms: r.durationMs,
    started_at: r.startedAt,
    next_attempt_at: r.to === 'retry_scheduled' ? r.nextAttemptAt : null,
  }));
  const moved = await db.transaction(async (trx) => {
    // Probe each row by its primary key. With the batch's size unknown (json_to_recordset is
    // estimated at 100 rows) and stale statistics on a young partition, the planner otherwise
    // reads every pending row (the whole backlog) through the queue's partial index and hashes
    // or loops over them. For the same reason the row is required not to be final, rather than
    // `status = 'pending'` (the same rows, CHECK webhook_deliveries_status), which would offer
    // that index again.
    await trx.raw('SET LOCAL synchronous_commit = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off');
    const { rows } = await trx.raw(
      `WITH r AS (
         SELECT * FROM json_to_recordset(?::json) AS r(id text, created_at timestamptz, lease_token uuid, attempt integer, status text, attempt_status text,
           response_status integer, error text, duration_ms integer, started_at timestamptz, next_attempt_at timestamptz)),
       moved AS (
         UPDATE webhook_deliveries d
            SET status = r.status, next_attempt_at = r.next_attempt_at, lease_token = NULL, last_response_status = r.response_status,
                last_error = r.error, last_duration_ms = r.duration_ms, last_attempt_at = r.started_at, updated_at = now()
           FROM r
          WHERE d.id = r.id AND d.created_at = r.created_at AND d.lease_token = r.lease_token AND d.status NOT IN ('succeeded', 'failed', 'canceled')
      RETURNING d.id, d.created_at)
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status, response_status, error, duration_ms, started_at, next_attempt_at, delivery_created_at)
       SELECT r.id, r.attempt, r.attempt_status, r.response_status, r.error, r.duration_ms, r.started_at, r.next_attempt_at, moved.created_at
         FROM r JOIN moved ON moved.id = r.id
       RETURNING delivery_id`,
      [JSON.stringify(entries)],
    );
    return new Set((rows as Array<{ delivery_id: string }>).map((row) => row.delivery_id));
  });
  return batch.map((a) => moved.has(a.delivery.id));
}

/** Ends a claimed delivery without an attempt (move `cancel`: endpoint deleted or disabled, event gone). */
export async function cancelDelivery(db: Knex, d: ClaimedDelivery, reason: string): Promise<void> {
  await db('webhook_deliveries')
    .where({ id: d.id, lease_token: d.lease_token, status: 'pending' })
    .update({ status: 'canceled', next_attempt_at: null, lease_token: null, last_error: reason, attempt_count: d.attempt - 1, updated_at: db.fn.now() });
}

/** Returns a claimed delivery to the queue, due now, without counting the attempt (move `release`, at shutdown). */
export async function releaseDelivery(db: Knex, d: ClaimedDelivery): Promise<void> {
  await db('webhook_deliveries')
    .where({ id: d.id, lease_token: d.lease_token, status: 'pending' })
    .update({ next_attempt_at: db.fn.now(), lease_token: null, attempt_count: d.attempt - 1, updated_at: db.fn.now() });
}

/**
 * Disables an endpoint whose delivery just exhausted the schedule (move `exhaust`), unless some
 * delivery to it succeeded since that delivery began (the endpoint works, that one message did
 * not). A success counts from when it was recorded (the delivery's `updated_at`, set by
 * `recordAttempt`; index `webhook_deliveries_succeeded`, migration 009).
 * @param since when the exhausted delivery was created
 * @returns true when this call disabled it
 */
export async function disableIfFailing(db: Knex, endpointId: string, since: Date): Promise<boolean> {
  const updated = await db('webhook_endpoints')
    .where({ id: endpointId, enabled: true })
    .whereNull('deleted_at')
    .whereNotExists(
      (q) => void q.select(db.raw('1')).from('webhook_deliveries').where({ endpoint_id: endpointId, status: 'succeeded' }).where('updated_at', '>=', since),
    )
    .update({ enabled: false, disabled_at: db.fn.now(), updated_at: db.fn.now() });
  return updated > 0;
}

/** Seconds until the earliest pending delivery is due (0 if one is due), or null when none is pending. */
export async function secondsUntilNextDue(db: Knex, opts: QueueOptions): Promise<number | null> {
  const q = db('webhook_deliveries').where('status', 'pending').min({ next: 'next_attempt_at' });
  tenantFilter(q, opts);
  const [row] = await q;
  const next = row?.next as Date | null;
  return next ? Math.max(0, (next.getTime() - Date.now()) / 1000) : null;
}

/**
 * Pending deliveries, split into due now and scheduled later (the `webhook_queue_depth` gauge), and
 * how long the longest-waiting due one has been due, seconds (0 when none is: the
 * `webhook_queue_oldest_due_seconds` gauge, the outbox's backlog age).
 */
export async function queueDepth(db: Knex, opts: QueueOptions): Promise<{ due: number; scheduled: number; oldestDueSeconds: number }> {
  const q = db('webhook_deliveries')
    .where('status', 'pending')
    .select(
      db.raw('count(*) FILTER (WHERE next_attempt_at <= now()) AS due'),
      db.raw('count(*) FILTER (WHERE next_attempt_at > now()) AS scheduled'),
      db.raw('coalesce(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0) AS oldest_due_seconds'),
    );
  tenantFilter(q, opts);
  const [row] = await q;
  return { due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0), oldestDueSeconds: Number(row?.oldest_due_seconds ?? 0) };
}
