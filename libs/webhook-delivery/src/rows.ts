/**
 * The stored shape of deliveries (migration 004_webhooks): `webhook_deliveries`, one row per
 * (event, endpoint) that is also the queue entry, and `webhook_delivery_attempts`, one row per
 * attempt. The API reads them (`GET /webhooks/{id}/deliveries`, docs/api.md section 7); the
 * dispatcher writes them through queue.ts.
 */
import type { Knex } from '@dms/db';
import type { DeliveryStatus } from './states.js';

/** A row of `webhook_deliveries`. */
export interface WebhookDeliveryRow {
  id: string;
  seq: number;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts started, the one in flight included. */
  attempt_count: number;
  /** Attempts made before the current retry schedule began (migration 020; a requeue sets it). */
  schedule_base: number;
  /** While pending: when the next attempt is due, or while leased, when the lease runs out. */
  next_attempt_at: Date | null;
  /** Set while a dispatcher holds the row (state `delivering`). */
  lease_token: string | null;
  last_response_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  last_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A row of `webhook_delivery_attempts`: one HTTP attempt of a delivery. */
export interface DeliveryAttemptRow {
  delivery_id: string;
  /** 1-based. */
  attempt: number;
  status: 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: Date;
  next_attempt_at: Date | null;
  /** The delivery's `created_at`: the partition key (migration 021), so attempts are dropped with their delivery. */
  delivery_created_at: Date;
}

/**
 * The attempts of deliveries `deliveryIds`, oldest first per delivery, in one query.
 * @param deliveryIds deliveries the caller may see (already scoped to its tenant)
 */
export async function loadAttempts(db: Knex, deliveryIds: readonly string[]): Promise<DeliveryAttemptRow[]> {
  if (!deliveryIds.length) return [];
  return db('webhook_delivery_attempts')
    .whereIn('delivery_id', deliveryIds as string[])
    .orderBy(['delivery_id', 'attempt']);
}
