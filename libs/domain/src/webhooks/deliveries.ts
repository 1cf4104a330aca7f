/**
 * Webhook deliveries (docs/api.md section 7): one per (event, endpoint), with every attempt the
 * dispatchers made. Listed under their endpoint, `GET /webhooks/{id}/deliveries`; read-only here,
 * written by services/dispatcher through @dms/webhook-delivery, which holds their states and rows.
 */
import type { Knex } from '@dms/db';
import { DELIVERY_STATUSES, loadAttempts, type DeliveryAttemptRow, type WebhookDeliveryRow } from '@dms/webhook-delivery';
import type { JsonSchema } from '../kernel/validation.js';
import { iso, timestampProperties } from '../kernel/schemas.js';

export { DELIVERY_STATUSES, type DeliveryAttemptRow, type WebhookDeliveryRow };

/** One recorded attempt: its row without the delivery id, timestamps as ISO 8601 text. */
export interface DeliveryAttempt extends Omit<DeliveryAttemptRow, 'delivery_id' | 'started_at' | 'next_attempt_at' | 'delivery_created_at'> {
  started_at: string;
  next_attempt_at: string | null;
}

/** The public delivery object. The `last_`/top-level result fields repeat the newest attempt. */
export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  endpoint: string;
  event: string;
  event_type: string;
  status: WebhookDeliveryRow['status'];
  attempt_count: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  attempts: DeliveryAttempt[];
  created_at: string;
  updated_at: string;
}

const attemptSchema: JsonSchema = {
  type: 'object',
  required: ['attempt', 'status', 'response_status', 'duration_ms', 'error', 'started_at', 'next_attempt_at'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['succeeded', 'failed'] },
    response_status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when no response arrived." },
    duration_ms: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'], description: 'Why the attempt failed (timeout, connection refused, token request failed, non-2xx status...).' },
    started_at: { type: 'string', format: 'date-time' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time', description: 'When the retry this failure scheduled is due; null when none.' },
  },
};

/** JSON Schema of the delivery object (for the OpenAPI document). */
export const webhookDeliverySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'endpoint', 'event', 'event_type', 'status', 'attempt_count', 'attempts', 'next_attempt_at', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', examples: ['del_1a2B3c4D5e6F7g8H9i0JkLmN'] },
    object: { const: 'webhook_delivery' },
    endpoint: { type: 'string', description: 'The webhook endpoint id.' },
    event: { type: 'string', description: 'The event id (also the `webhook-id` header of every attempt).' },
    event_type: { type: 'string' },
    status: {
      type: 'string',
      enum: [...DELIVERY_STATUSES],
      description: '`pending` until an attempt succeeds or the retry schedule is exhausted; `canceled` when the endpoint was deleted or disabled first.',
    },
    attempt_count: { type: 'integer' },
    response_status: { type: ['integer', 'null'], description: 'HTTP status of the latest attempt.' },
    duration_ms: { type: ['integer', 'null'], description: 'Duration of the latest attempt.' },
    error: { type: ['string', 'null'], description: 'Error of the latest attempt.' },
    last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time', description: 'When the next attempt is due while pending.' },
    attempts: { type: 'array', items: attemptSchema, description: 'Every attempt, oldest first.' },
    ...timestampProperties,
  },
};

function toAttempt(row: DeliveryAttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    status: row.status,
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    error: row.error,
    started_at: iso(row.started_at)!,
    next_attempt_at: iso(row.next_attempt_at),
  };
}

/**
 * Serializes a page of deliveries with their attempts, loaded in one query for the whole page.
 * @param rows deliveries already scoped to the caller's tenant
 */
export async function toWebhookDeliveries(db: Knex, rows: WebhookDeliveryRow[]): Promise<WebhookDelivery[]> {
  const attempts = await loadAttempts(
    db,
    rows.map((r) => r.id),
  );
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push(toAttempt(a));
    byDelivery.set(a.delivery_id, list);
  }
  return rows.map((row) => ({
    id: row.id,
    object: 'webhook_delivery',
    endpoint: row.endpoint_id,
    event: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    response_status: row.last_response_status,
    duration_ms: row.last_duration_ms,
    error: row.last_error,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    attempts: byDelivery.get(row.id) ?? [],
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  }));
}
