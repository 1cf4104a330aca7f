/**
 * Hands queued communications to the providers of their channels (docs/api.md section 13) after
 * the engine's transaction committed, several at once on the providers' pooled connections, and
 * records the outcomes in one transaction (`recordOutcomes`): accepted (`sent`), or failed with the
 * reason. A channel without a provider, or a provider that refused the message, fails it; an
 * outcome that is unknown (the message may have left) fails it too, and it is never sent again.
 */
import { ChannelError, type Channels, type SendResult } from '@dms/channels';
import type { Knex } from '@dms/db';
import { recordOutcomes, type CommunicationRow, type SendOutcome, type SendTarget } from '@dms/domain/communications';
import type { Logger } from '@dms/logger';

/** One queued communication to hand over. */
export interface Handover {
  communication: CommunicationRow;
  to: SendTarget;
  /** The engine's clock when the communication was made (the first contact's time). */
  now: Date;
}

/** Hands one message over by its channel. */
function handOver(channels: Channels, com: CommunicationRow, to: SendTarget): Promise<SendResult> {
  switch (com.delivery_method) {
    case 'email':
      if (!channels.email) throw new ChannelError('rejected', 'not_configured', 'no email provider is configured (SMTP_URL)');
      return channels.email.send({ communicationId: com.id, debtId: com.debt_id, to: to.value!, toName: to.name, subject: to.subject ?? '', html: to.body });
    case 'sms':
      if (!channels.sms) throw new ChannelError('rejected', 'not_configured', 'no SMS provider is configured (SMS_API_KEY)');
      return channels.sms.send({ communicationId: com.id, to: to.value!, text: to.body });
    case 'letter':
      return channels.letter.send({
        communicationId: com.id,
        recipient: { name: to.name, address: to.address as { line_1: string } },
        sender: { name: to.senderName },
        date: com.handed_at ?? new Date(),
        subject: to.subject,
        text: to.body,
        reference: com.id,
      });
  }
}

/** Sends one communication; what happened, as `recordOutcomes` takes it. */
async function attempt(channels: Channels, log: Logger, item: Handover): Promise<SendOutcome> {
  try {
    const result = await handOver(channels, item.communication, item.to);
    return { kind: 'sent', accepted: { provider: result.provider, providerReference: result.providerReference, details: result.details }, now: item.now };
  } catch (err) {
    const failure = err instanceof ChannelError ? err : new ChannelError('unknown', 'error', (err as Error).message);
    const reason = `${failure.code}: ${failure.message}${failure.outcome === 'unknown' ? ' (the message may have left; not sent again)' : ''}`;
    log.warn({ communication: item.communication.id, outcome: failure.outcome, code: failure.code }, 'send failed');
    return { kind: 'failed', reason, countsAsContact: failure.outcome === 'unknown' };
  }
}

/**
 * Sends `items`, at most `sendConcurrency` at once, then records every outcome in one transaction.
 * A worker killed before that commit leaves the communications `queued`: reconciliation settles them.
 */
export async function handOverAll(deps: { db: Knex; channels: Channels; log: Logger; sendConcurrency: number }, items: readonly Handover[]): Promise<void> {
  const outcomes: Array<{ sent: CommunicationRow; outcome: SendOutcome }> = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++)
      outcomes[i] = { sent: items[i]!.communication, outcome: await attempt(deps.channels, deps.log, items[i]!) };
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.sendConcurrency, items.length)) }, lane));
  await recordOutcomes(deps.db, outcomes);
}
