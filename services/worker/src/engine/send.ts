/**
 * Hands a queued communication to the provider of its channel (docs/api.md section 13) after the
 * engine's transaction committed, and records the outcome: accepted (`sent`), or failed with the
 * reason. A channel without a provider, or a provider that refused the message, fails it; an
 * outcome that is unknown (the message may have left) fails it too, and it is never sent again.
 */
import { ChannelError, type Channels, type SendResult } from '@dms/channels';
import type { Knex } from '@dms/db';
import { recordSendFailure, recordSent, type CommunicationRow, type SendTarget } from '@dms/domain/communications';
import type { Logger } from '@dms/logger';

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

/**
 * Sends `com` to `to` and records what happened.
 * @param now the engine's clock when the communication was made (first contact time)
 */
export async function sendCommunication(deps: { db: Knex; channels: Channels; log: Logger }, com: CommunicationRow, to: SendTarget, now: Date): Promise<void> {
  const { db, channels, log } = deps;
  let result: SendResult;
  try {
    result = await handOver(channels, com, to);
  } catch (err) {
    const failure = err instanceof ChannelError ? err : new ChannelError('unknown', 'error', (err as Error).message);
    const reason = `${failure.code}: ${failure.message}${failure.outcome === 'unknown' ? ' (the message may have left; not sent again)' : ''}`;
    log.warn({ communication: com.id, outcome: failure.outcome, code: failure.code }, 'send failed');
    await recordSendFailure(db, com, reason, failure.outcome === 'unknown');
    return;
  }
  await recordSent(db, com, { provider: result.provider, providerReference: result.providerReference, details: result.details }, now);
}
