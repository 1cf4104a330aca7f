/**
 * Hands queued communications to the providers of their channels (docs/api.md section 13) after
 * the engine's transaction committed, several at once (`sendConcurrency` lanes on the providers'
 * pooled connections), each on its own: marked handed over in one statement just before its
 * hand-over (`markSending`), its outcome written right after (outcome-writer.ts). So a worker
 * killed at any instant leaves at most one message per lane marked without an outcome, and those
 * alone are reconciled.
 * - accepted: `sent`;
 * - refused for now (`not_sent`: SMTP 4xx, no connection or a connection closed before the message
 *   was sent, SMS throttling): back to `queued`, handed over again after a backoff with jitter
 *   inside the contact hours (`nextRetryAt`), for up to the retry window; past it, refused;
 * - refused for good (`rejected`): `failed`, and the contact detail `undeliverable` when the
 *   refusal was of the recipient;
 * - may have left (`unknown`): nothing is written; the communication stays marked and is
 *   reconciled (asked of the provider, or failed; never sent again blindly).
 */
import { ChannelError, type Channels, type SendResult } from '@dms/channels';
import type { Knex } from '@dms/db';
import { markSending, nextRetryAt, type CommunicationRow, type RetrySettings, type SendOutcome, type SendTarget, type Links } from '@dms/domain/communications';
import type { Logger } from '@dms/logger';
import { untilWritten, type OutcomeWriter } from './outcome-writer.js';

/** One queued communication to hand over. */
export interface Handover {
  communication: CommunicationRow;
  to: SendTarget;
}

/** What handing over needs. */
export interface SendDeps {
  db: Knex;
  channels: Channels;
  log: Logger;
  /** Hand-overs in flight at once. */
  sendConcurrency: number;
  /** The worker's clock offset (seconds added to the tenant's clock). */
  clockOffsetSeconds: number;
  retry: RetrySettings;
  outcomes: OutcomeWriter;
}

/** What the engine needs beyond the database: handing over, and making messages (its links) and reconciling them. */
export interface EngineDeps extends SendDeps {
  links: Links;
  /** Seconds after a hand-over before a still-`queued` communication is reconciled. */
  reconcileAfterSeconds: number;
  /** Seconds a worker has to hand over the communications it made or claimed before another may. */
  leaseSeconds: number;
}

/** Refusal codes that say the recipient itself is unusable (its contact detail becomes `undeliverable`). */
const RECIPIENT_REFUSALS = new Set(['recipient_rejected', 'invalid_address', 'invalid_number']);

/** Hands one message over by its channel. */
function handOver(channels: Channels, com: CommunicationRow, to: SendTarget, handedAt: Date): Promise<SendResult> {
  switch (com.delivery_method) {
    case 'email':
      if (!channels.email) throw new ChannelError('rejected', 'not_configured', 'no email provider is configured (SMTP_URL)');
      return channels.email.send({ communicationId: com.id, debtId: com.debt_id, to: to.value!, toName: to.name, subject: to.subject ?? '', html: to.body });
    case 'sms':
      if (!channels.sms) throw new ChannelError('rejected', 'not_configured', 'no SMS provider is configured (SMS_API_KEY)');
      return channels.sms.send({ communicationId: com.id, to: to.value!, text: to.body });
    case 'portal':
      throw new ChannelError('rejected', 'not_configured', 'a portal communication is inbound only');
    case 'letter':
      return channels.letter.send({
        communicationId: com.id,
        recipient: { name: to.name, address: to.address as { line_1: string } },
        sender: { name: to.senderName },
        date: handedAt,
        subject: to.subject,
        text: to.body,
        reference: com.id,
      });
  }
}

/** Hands one marked communication over; its outcome, or null when it may have left (left to reconciliation). */
async function attempt(deps: SendDeps, item: Handover, mark: { handedAt: Date; firstAttemptAt: Date }): Promise<SendOutcome | null> {
  const started = Date.now();
  try {
    const result = await handOver(deps.channels, item.communication, item.to, mark.handedAt);
    return {
      kind: 'sent',
      accepted: { provider: result.provider, providerReference: result.providerReference, details: result.details },
      handedAt: mark.handedAt,
    };
  } catch (err) {
    const failure = err instanceof ChannelError ? err : new ChannelError('unknown', 'error', (err as Error).message);
    deps.log.warn({ communication: item.communication.id, outcome: failure.outcome, code: failure.code }, 'send failed');
    const reason = `${failure.code}: ${failure.message}`;
    if (failure.outcome === 'unknown') return null;
    if (failure.outcome === 'rejected') return { kind: 'refused', reason, undeliverable: RECIPIENT_REFUSALS.has(failure.code) };
    const now = new Date(mark.handedAt.getTime() + (Date.now() - started));
    const retryAt = nextRetryAt(item.communication.attempts + 1, mark.firstAttemptAt, now, item.to.timeZone, deps.retry, Math.random());
    if (!retryAt) return { kind: 'refused', reason: `${reason} (still refused at the end of the retry window)`, undeliverable: false };
    return { kind: 'deferred', reason, retryAt };
  }
}

/**
 * Hands `items` over, at most `sendConcurrency` at once, each marked just before and its outcome
 * recorded right after (see the module doc). A database that is away is waited for (the marks and
 * the outcomes are retried with backoff); a communication another worker has marked is skipped.
 */
export async function handOverAll(deps: SendDeps, items: readonly Handover[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i]!;
      const mark = await untilWritten(deps.log, 'marking a hand-over', () => markSending(deps.db, item.communication, deps.clockOffsetSeconds));
      if (!mark) continue;
      const outcome = await attempt(deps, item, mark);
      if (outcome) await deps.outcomes.write(item.communication, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.sendConcurrency, items.length)) }, lane));
}
