/**
 * What the Vonage SMS API sends us (Vonage API reference, "SMS API": the `delivery-receipt`
 * callback and the inbound message webhook), verified and parsed. Vonage sends these as a query
 * string, a form or a JSON body depending on the account's webhook method; the API's callback
 * endpoints pass the parameters as one flat record of strings either way.
 *
 * Both verify the signature first (signature.ts: constant time, timestamp tolerance, account,
 * replay guard): an unsigned or forged callback never reaches the parser.
 */
import { verifySignedParams, type VerifyOptions } from './signature.js';
import type { DeliveryReceipt, ReceiptStatus } from '../types.js';

/** `err-code`s of delivery receipts that mean the number itself is unusable (Vonage, "SMS Delivery Error Codes"): 3 absent subscriber, permanent; 4 call barred by user; 9 illegal number (the user asked not to receive messages). */
export const UNUSABLE_NUMBER_CODES: ReadonlySet<string> = new Set(['3', '4', '9']);

/** A customer's SMS to our number, ready to become an inbound communication. */
export interface InboundSms {
  /** Vonage's `messageId`: the inbound communication's `provider_reference`. */
  providerReference: string;
  /** Sender in E.164 with `+` (Vonage sends digits only). */
  from: string;
  /** Our number or sender id it was sent to. */
  to: string;
  text: string;
  receivedAt: Date | null;
  /** Parts of a long message arrive separately: join the parts sharing `ref` in `part` order once all `total` arrived. */
  concat: { ref: string; part: number; total: number } | null;
}

/** Vonage's `message-timestamp` (`YYYY-MM-DD HH:MM:SS`, UTC). */
function timestamp(value: string | undefined): Date | null {
  if (!value || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return null;
  return new Date(`${value.replace(' ', 'T')}Z`);
}

function required<K extends string>(params: Record<string, string>, names: K[]): asserts params is Record<string, string> & Record<K, string> {
  const missing = names.filter((n) => !params[n]);
  if (missing.length > 0) throw new RangeError(`missing ${missing.join(', ')}`);
}

/** Maps a delivery receipt's `status` and `err-code` to ours (docs/api.md section 13). */
export function receiptStatus(status: string, errCode: string): ReceiptStatus {
  switch (status) {
    case 'delivered':
      return 'delivered';
    case 'expired':
      return 'failed';
    case 'failed':
    case 'rejected':
      return UNUSABLE_NUMBER_CODES.has(errCode) ? 'bounced' : 'failed';
    default:
      // accepted, buffered, unknown: interim news
      return 'pending';
  }
}

/**
 * Verifies and parses a delivery receipt (DLR).
 * @throws SignatureError when verification fails (answer 401), RangeError when a field is missing (answer 400)
 */
export async function parseVonageReceipt(params: Record<string, string>, verify: VerifyOptions): Promise<DeliveryReceipt> {
  await verifySignedParams(params, verify);
  required(params, ['messageId', 'status']);
  const errCode = params['err-code'] ?? '0';
  const status = receiptStatus(params.status, errCode);
  return {
    providerReference: params.messageId,
    communicationId: params['client-ref'] || null,
    status,
    reason: status === 'failed' || status === 'bounced' ? `vonage ${params.status}, err-code ${errCode}` : null,
    occurredAt: timestamp(params['message-timestamp']),
  };
}

/**
 * Verifies and parses an inbound SMS.
 * @throws SignatureError when verification fails (answer 401), RangeError when a field is missing (answer 400)
 */
export async function parseVonageInbound(params: Record<string, string>, verify: VerifyOptions): Promise<InboundSms> {
  await verifySignedParams(params, verify);
  required(params, ['messageId', 'msisdn', 'to']);
  const concat =
    params.concat === 'true' ? { ref: params['concat-ref'] ?? '', part: Number(params['concat-part']), total: Number(params['concat-total']) } : null;
  return {
    providerReference: params.messageId,
    from: `+${params.msisdn.replace(/^\+/, '')}`,
    to: params.to,
    text: params.text ?? '',
    receivedAt: timestamp(params['message-timestamp']),
    concat,
  };
}
