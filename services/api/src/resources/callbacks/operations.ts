/**
 * Provider callbacks (docs/api.md section 13): public routes (no OAuth token) that providers call,
 * each authenticated by its own means, idempotent by the provider's reference (a replay records
 * nothing and answers 200):
 * - `POST /callbacks/email`: a message sent to the reply domain (a reply to a debt's reply
 *   address, or a delivery status report for a bounce address), forwarded raw
 *   (`message/rfc822`) with `Authorization: Bearer <INBOUND_MAIL_SECRET>`;
 * - `POST /callbacks/sms/receipts` and `/callbacks/sms/inbound`: Vonage delivery receipts and
 *   inbound SMS, signed with `SMS_SIGNATURE_SECRET` (a wrong or missing signature is 401).
 */
import { resolveSecretsKey } from '@dms/config';
import { ApiError } from '@dms/errors';
import { applyReceipt, recordReply, type CallbackOutcome } from '@dms/domain/communications';
import { Type } from '@sinclair/typebox';
import type { VerifyOptions } from '@dms/channels';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import type { AppContext } from '../../context.js';
import { rawBody, requireBearer, webhookParams } from './receive.js';

const CallbackResult = {
  name: 'CallbackResult',
  schema: Type.Object({
    recorded: Type.Boolean({ description: 'False when nothing changed: a replay, interim news, or a message about nothing we sent.' }),
    communication: Type.Optional(Type.String({ description: 'The communication recorded or updated.' })),
    reason: Type.Optional(Type.String()),
  }),
};
const head = { method: 'post', tag: 'Callbacks', access: { token: false }, response: { ...CallbackResult, status: 200 } } as const;

/** The channel libraries load on the first callback, not at start. */
const channels = () => import('@dms/channels');

/** The inbound-mail options of the settings. */
async function inboundOptions(ctx: AppContext, envelopeTo: string | undefined) {
  const { addressKey } = await channels();
  const domain = /@([^@\s>]+)>?\s*$/.exec(ctx.cfg.MAIL_FROM)?.[1] ?? 'localhost';
  return {
    addresses: addressKey(ctx.cfg, resolveSecretsKey(ctx.cfg)),
    messageIdDomain: domain,
    ...(envelopeTo ? { envelopeTo: envelopeTo.split(',').map((a) => a.trim()) } : {}),
  };
}

/**
 * How Vonage webhooks are verified, from the settings.
 * @throws ApiError 401 `invalid_token` while no signature secret is set (anyone could sign with an empty one)
 */
function smsVerify(ctx: AppContext): VerifyOptions {
  if (!ctx.cfg.SMS_SIGNATURE_SECRET) throw new ApiError('invalid_token', 'SMS callbacks are not configured (SMS_SIGNATURE_SECRET is empty).');
  return {
    secret: ctx.cfg.SMS_SIGNATURE_SECRET,
    method: ctx.cfg.SMS_SIGNATURE_METHOD,
    apiKey: ctx.cfg.SMS_API_KEY,
    toleranceSeconds: ctx.cfg.SMS_SIGNATURE_TOLERANCE_SECONDS,
  };
}

/** Runs a Vonage parser, turning a bad signature into 401 and a missing field into 400. */
async function verified<T>(parse: () => Promise<T>): Promise<T> {
  const { SignatureError } = await channels();
  try {
    return await parse();
  } catch (err) {
    if (err instanceof SignatureError) throw new ApiError('invalid_token', `The callback's signature is not valid: ${err.message}`);
    if (err instanceof RangeError) throw new ApiError('validation_failed', err.message, { param: 'body' });
    throw err;
  }
}

/** The operations of `/callbacks/`. */
export const callbackOperations: AnyOperation[] = [
  defineOperation({
    ...head,
    path: '/callbacks/email',
    operationId: 'receiveEmail',
    summary: 'Receive a reply or a bounce by email',
    description:
      "A message to the reply domain, raw (`message/rfc822`), with `Authorization: Bearer <INBOUND_MAIL_SECRET>` (401 otherwise) and optionally `X-Envelope-To`. A delivery status report marks its communication `bounced` (a permanent failure also marks the contact detail `undeliverable`) or `failed`; a reply to a debt's reply address becomes an inbound communication and moves the debt to `contact_established`. Idempotent by Message-ID.",
    errors: ['invalid_token', 'body_too_large'],
    events: [
      'communication.received',
      'communication.failed',
      'customer_contact_detail.updated',
      'debt.contact_established',
      'debt.contact_failed',
      'debt.enriching',
    ],
    handler: async ({ ctx, req }): Promise<CallbackOutcome> => {
      requireBearer(req, ctx.cfg.INBOUND_MAIL_SECRET);
      const raw = await rawBody(req);
      const { parseBounce, parseInboundEmail } = await channels();
      const options = await inboundOptions(ctx, req.get('x-envelope-to'));
      const bounces = await parseBounce(raw, options);
      if (bounces.length) {
        let outcome: CallbackOutcome = { recorded: false, reason: 'no failed recipient' };
        for (const b of bounces.filter((x) => x.action === 'failed')) {
          outcome = await applyReceipt(ctx.db, {
            communicationId: b.communicationId,
            providerReference: b.originalMessageId ?? '',
            status: b.permanent ? 'bounced' : 'failed',
            reason: `${b.status} ${b.diagnostic ?? ''}`.trim(),
          });
        }
        return outcome;
      }
      const reply = await parseInboundEmail(raw, options);
      if (!reply) return { recorded: false, reason: 'not addressed to a reply address of ours' };
      const { createHash } = await import('node:crypto');
      return recordReply(ctx.db, {
        deliveryMethod: 'email',
        provider: 'smtp',
        providerReference: reply.messageId ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`,
        debtId: reply.debtId,
        from: reply.from.address,
        subject: reply.subject,
        text: reply.text,
      });
    },
  }),
  defineOperation({
    ...head,
    path: '/callbacks/sms/receipts',
    operationId: 'receiveSmsReceipt',
    summary: 'Receive an SMS delivery receipt (Vonage)',
    description:
      'A Vonage delivery receipt, signed with `SMS_SIGNATURE_SECRET` (401 when the signature is wrong, missing or stale). Moves the communication to `delivered` or `failed`; an unusable number to `bounced`, marking the contact detail `undeliverable`. A replay changes nothing.',
    errors: ['invalid_token', 'body_too_large'],
    events: ['communication.delivered', 'communication.failed', 'customer_contact_detail.updated', 'debt.contact_failed', 'debt.enriching'],
    handler: async ({ ctx, req }): Promise<CallbackOutcome> => {
      const { parseVonageReceipt } = await channels();
      const params = await webhookParams(req);
      const receipt = await verified(() => parseVonageReceipt(params, smsVerify(ctx)));
      return applyReceipt(ctx.db, receipt);
    },
  }),
  defineOperation({
    ...head,
    path: '/callbacks/sms/inbound',
    operationId: 'receiveSms',
    summary: 'Receive an SMS from a customer (Vonage)',
    description:
      "A Vonage inbound message, signed with `SMS_SIGNATURE_SECRET` (401 otherwise). It becomes an inbound communication of the debt last texted to that number and moves the debt to `contact_established`; a whole text of `STOP` also removes `sms` from the customer's accepted channels (`customer.updated`). Idempotent by Vonage `messageId`.",
    errors: ['invalid_token', 'body_too_large'],
    events: ['communication.received', 'debt.contact_established', 'customer.updated'],
    handler: async ({ ctx, req }): Promise<CallbackOutcome> => {
      const { parseVonageInbound } = await channels();
      const params = await webhookParams(req);
      const sms = await verified(() => parseVonageInbound(params, smsVerify(ctx)));
      return recordReply(ctx.db, {
        deliveryMethod: 'sms',
        provider: 'vonage',
        providerReference: sms.providerReference,
        debtId: null,
        from: sms.from,
        subject: null,
        text: sms.text,
      });
    },
  }),
];
