/**
 * Processing one claimed delivery (docs/api.md section 7), as five steps in order:
 *
 * 1. `target`: the endpoint and event it goes to, or why it ends without sending;
 * 2. `render`: the event body in the endpoint's version;
 * 3. `send`: one signed attempt;
 * 4. `decide`: the delivery's next move (the state machine and retry schedule of
 *    @dms/webhook-delivery);
 * 5. `record`: the move written under the lease, with its metrics and log line.
 */
import type { Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import { SecretDecryptionError } from '@dms/secrets';
import { inSpanFollowing } from '@dms/telemetry';
import {
  cancelDelivery,
  decideAfterAttempt,
  disableIfFailing,
  eventApiVersion,
  releaseDelivery,
  LATEST_API_VERSION,
  renderEventIn,
  requireTransition,
  type AttemptEnd,
  type ClaimedDelivery,
  type RetryPolicy,
  type StoredEvent,
} from '@dms/webhook-delivery';
import type { DispatcherMetrics } from '../metrics.js';
import { deliveryAttempt, type AttemptDeps, type AttemptResult } from './attempt.js';
import type { AttemptRecorder } from './recorder.js';
import type { BatchTargets, EndpointTarget } from './targets.js';

/** What processing a delivery needs. */
export interface ProcessDeps {
  db: Knex;
  log: Logger;
  metrics: DispatcherMetrics;
  policy: RetryPolicy;
  attempt: AttemptDeps;
  /** Writes attempt results, batched with those of other deliveries finishing at the same time. */
  recorder: AttemptRecorder;
  /** True once the dispatcher is shutting down: an aborted attempt then goes back to the queue. */
  isStopping: () => boolean;
}

/** One of the dispatcher's `DISPATCH_CONCURRENCY` sending slots, for one delivery. */
export interface SendSlot {
  /** Resolves once the delivery may send. */
  take(): Promise<void>;
  /** The delivery no longer needs to send (done, or nothing to send); idempotent. */
  free(): void;
}

/** Step 1's answer: send, end without sending (`cancel`), or count a failed attempt without sending. */
type Target =
  | { kind: 'send'; endpoint: EndpointTarget; event: StoredEvent }
  | { kind: 'cancel'; reason: string; endpointGone: boolean }
  | { kind: 'fail'; result: AttemptResult };

/** Step 4's answer: a move of the delivery state machine and what recording it needs. */
type Decision =
  | { move: 'cancel'; reason: string; endpointGone: boolean }
  | { move: 'release' }
  | { move: 'succeed' | 'retry' | 'exhaust'; nextAttemptAt: Date | null; result: AttemptResult; startedAt: Date };

/** Metrics and log label of each state an attempt can end in. */
const OUTCOME: Readonly<Record<AttemptEnd, string>> = { succeeded: 'succeeded', retry_scheduled: 'retrying', exhausted: 'failed' };

/**
 * Processes claimed delivery `d` to its next state: target, render, send, decide, record.
 * @param batch the endpoints and events of `d`'s batch (loading may still be under way)
 * @param signal aborts the attempt (lease running out, shutdown)
 * @param slot taken before the send, freed after it (or at once when there is nothing to send),
 *   before the result is recorded
 * @throws what loading the batch or a database write throws; the delivery stays leased and is
 *   claimed again when its lease runs out
 */
export async function processDelivery(
  deps: ProcessDeps,
  d: ClaimedDelivery,
  batch: Promise<BatchTargets>,
  signal: AbortSignal,
  slot: SendSlot = { take: async () => {}, free: () => {} },
): Promise<void> {
  const targets = await batch;
  const aim = target(d, targets, deps.policy.schedule.length);
  if (aim.kind === 'cancel') {
    slot.free();
    return record(deps, d, { move: 'cancel', reason: aim.reason, endpointGone: aim.endpointGone });
  }
  if (aim.kind !== 'send') {
    slot.free();
    return record(deps, d, decide(deps, d, aim.result, new Date(), signal));
  }
  // The delivery continues the trace of the request (or change) that recorded its event.
  const attributes = { 'dms.delivery_id': d.id, 'dms.event_id': d.event_id, 'dms.endpoint_id': d.endpoint_id, 'dms.attempt': d.attempt + 1 };
  return inSpanFollowing('webhook.deliver', aim.event.trace_parent, attributes, async (span) => {
    await slot.take();
    const startedAt = new Date();
    const result = await send(deps.attempt, d, aim.endpoint, aim.event, signal);
    slot.free();
    if (result.responseStatus !== null) span.setAttribute('http.response.status_code', result.responseStatus);
    return record(deps, d, decide(deps, d, result, startedAt, signal));
  });
}

/**
 * Step 1: where `d` goes. Canceled when its event is gone or its endpoint deleted or disabled; a
 * failed attempt without sending when the endpoint's secrets cannot be decrypted, or when
 * interrupted attempts used up the schedule without a recorded result.
 * @throws what reading the endpoint throws other than `SecretDecryptionError`
 */
function target(d: ClaimedDelivery, targets: BatchTargets, scheduleLength: number): Target {
  const event = targets.events.get(d.event_id);
  let endpoint: EndpointTarget | undefined;
  try {
    endpoint = targets.endpoints.get(d.endpoint_id)?.();
  } catch (err) {
    if (!(err instanceof SecretDecryptionError)) throw err;
    return { kind: 'fail', result: { ok: false, responseStatus: null, error: 'endpoint secrets cannot be decrypted (SECRETS_KEY)', durationMs: 0 } };
  }
  if (!endpoint || !endpoint.active || !event) {
    return { kind: 'cancel', reason: !event ? 'event missing' : 'endpoint deleted or disabled', endpointGone: !endpoint };
  }
  if (d.step > scheduleLength) {
    return { kind: 'fail', result: { ok: false, responseStatus: null, error: 'retry schedule exhausted', durationMs: 0 } };
  }
  return { kind: 'send', endpoint, event };
}

/** Step 2: the JSON body of `event` in the shape of `endpoint`'s version. */
function render(event: StoredEvent, endpoint: EndpointTarget): string {
  return JSON.stringify(renderEventIn(event, eventApiVersion(endpoint.version), LATEST_API_VERSION));
}

/**
 * Step 3: one signed attempt of `event` rendered for `endpoint` (step 2); the event id is the
 * message id, the same on every retry.
 */
function send(deps: AttemptDeps, d: ClaimedDelivery, endpoint: EndpointTarget, event: StoredEvent, signal: AbortSignal): Promise<AttemptResult> {
  return deliveryAttempt(deps, endpoint, d.event_id, render(event, endpoint), signal, event.trace_parent);
}

/**
 * Step 4: the move after an attempt. An attempt aborted by shutdown returns the delivery to the
 * queue uncounted; otherwise success ends it and a failure retries while the schedule lasts
 * (honouring the receiver's Retry-After) and exhausts it after the last step.
 */
function decide(deps: ProcessDeps, d: ClaimedDelivery, result: AttemptResult, startedAt: Date, signal: AbortSignal): Decision {
  if (deps.isStopping() && signal.aborted) return { move: 'release' };
  // The schedule counts from the last requeue (docs/api.md section 11), not from the first attempt.
  const next = decideAfterAttempt(result.ok, d.step, deps.policy, result.retryAfterSeconds);
  return { move: next.move, nextAttemptAt: next.move === 'retry' ? next.nextAttemptAt : null, result, startedAt };
}

/**
 * Step 5: writes the decided move under `d`'s lease, counts it and logs it (`webhook.canceled`,
 * `webhook.released`, `webhook.attempt`, `webhook.disabled`; never a secret). An exhausted
 * delivery disables its endpoint unless another delivery to it succeeded meanwhile.
 */
async function record(deps: ProcessDeps, d: ClaimedDelivery, decision: Decision): Promise<void> {
  const { db, log, metrics } = deps;
  // Every move a dispatcher makes starts from its lease; the table says where it leads.
  const to = requireTransition('delivering', decision.move);
  const context = { delivery_id: d.id, endpoint_id: d.endpoint_id, event_id: d.event_id, tenant_id: d.tenant_id, attempt: d.attempt };
  if (decision.move === 'cancel') {
    await cancelDelivery(db, d, decision.reason);
    if (decision.endpointGone) deps.attempt.tokens.forget(d.endpoint_id);
    metrics.canceled.inc();
    log.info(context, 'webhook.canceled');
    return;
  }
  if (decision.move === 'release') {
    await releaseDelivery(db, d);
    log.info(context, 'webhook.released');
    return;
  }
  const { result, nextAttemptAt, startedAt } = decision;
  const end = to as AttemptEnd;
  const recorded = await deps.recorder.record(d, { ...result, to: end, startedAt, nextAttemptAt });
  const outcome = OUTCOME[end];
  metrics.attempts.inc({ outcome });
  metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
  const line = {
    ...context,
    outcome,
    response_status: result.responseStatus,
    duration_ms: result.durationMs,
    error: result.error ?? undefined,
    next_attempt_at: nextAttemptAt?.toISOString(),
  };
  if (!recorded) {
    log.warn(line, 'webhook.attempt_discarded: lease lost before the result was recorded');
    return;
  }
  log.info(line, 'webhook.attempt');
  if (end === 'exhausted' && (await disableIfFailing(db, d.endpoint_id, d.created_at))) {
    metrics.disabled.inc();
    log.warn({ endpoint_id: d.endpoint_id, tenant_id: d.tenant_id, delivery_id: d.id, attempts: d.attempt, last_error: result.error }, 'webhook.disabled');
  }
}
