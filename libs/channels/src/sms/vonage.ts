/**
 * SMS through the Vonage SMS API (Vonage API reference, "SMS API": `POST /sms/json`; "Reports
 * API": `GET /v2/reports/records`), with undici. Chosen because its send request carries our own
 * reference (`client-ref`, up to 100 characters), which comes back in every delivery receipt and
 * in the message records the Reports API can be searched for, and because its webhooks can be
 * signed (`sig`, `timestamp`, `nonce`; signature.ts). docs/api.md section 13 describes the shape.
 *
 * - **Identity**: `client-ref` is the communication id. A long text is split by Vonage into parts,
 *   each with its own `message-id` and receipt, all carrying the same `client-ref`; the provider
 *   reference is the first part's id and `details.parts` lists them all.
 * - **Authentication**: with a signature secret the request is signed (`timestamp` + `sig`),
 *   otherwise it carries `api_secret`.
 * - **Failures**: a connection that never opened is `not_sent`; a lost or timed-out request is
 *   `unknown` (Vonage may have queued it); a 5xx or 429 answer, and `status` 1 (throttled), are
 *   `not_sent` (the API answered that it did not take the message: the engine retries it with
 *   backoff, docs/api.md section 13); any other non-zero `status` is `rejected` with Vonage's
 *   `error-text`.
 * - **Reconciliation**: the Reports API's synchronous records of outbound SMS received in a window
 *   around the attempt (at most 24 hours, per the API) are searched for our `client-ref`. Records
 *   appear with a delay, so a search sooner than `settleSeconds` after the attempt answers
 *   `ask_later`; the Reports API is a paid product, and without access it answers `unknown`.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { signParams, type SignatureMethod } from './signature.js';
import { ChannelError, type ChannelProvider, type Reconciliation, type SendResult } from '../types.js';

/** One SMS of one communication. */
export interface SmsMessage {
  communicationId: string;
  /** Recipient in E.164 (`+447700900123`). */
  to: string;
  text: string;
}

export interface VonageOptions {
  /** `SMS_API_URL`: base of the SMS API (`https://rest.nexmo.com`). */
  apiUrl: string;
  /** `SMS_REPORTS_URL`: base of the Reports API (`https://api.nexmo.com`). */
  reportsUrl: string;
  apiKey: string;
  apiSecret: string;
  /** When set, requests are signed with it instead of carrying `api_secret`. */
  signatureSecret?: string;
  signatureMethod?: SignatureMethod;
  /** Sender id or number (`from`). */
  from: string;
  /** Where Vonage sends this message's delivery receipts (`callback`; empty: the account's setting). */
  callbackUrl?: string;
  /** Seconds to wait for an answer (default 30). */
  timeoutSeconds?: number;
  /** Seconds after an attempt before the Reports API is trusted to list it (default 600). */
  settleSeconds?: number;
  /** Clock in milliseconds (tests move it). */
  now?: () => number;
}

/** Characters of the GSM 03.38 default alphabet and its extension table: a text of only these is sent as `type=text`, anything else as `unicode`. */
const GSM7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà\f^{}\\[~\]|€]*$/;

/** Whether `text` fits the GSM 7-bit alphabet (else it needs `type=unicode`). */
export function isGsm7(text: string): boolean {
  return GSM7.test(text);
}

/** Connect errors: the request never left. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** A transport error of undici as a `ChannelError`: `not_sent` before connecting, `unknown` after. */
export function classifyHttpError(err: unknown): ChannelError {
  const code = String((err as { code?: string }).code ?? 'http_error');
  const message = (err as Error).message ?? String(err);
  return NOT_CONNECTED.has(code)
    ? new ChannelError('not_sent', code.toLowerCase(), `SMS API not reached: ${message}`, { cause: err })
    : new ChannelError('unknown', code.toLowerCase(), `SMS API request lost (it may have been accepted): ${message}`, { cause: err });
}

interface SendAnswer {
  'message-count'?: string;
  messages?: Array<{ status?: string; 'message-id'?: string; 'error-text'?: string; 'client-ref'?: string }>;
}

interface RecordsAnswer {
  records?: Array<{ client_ref?: string; message_id?: string; status?: string; error_code?: string }>;
  _links?: { next?: { href?: string } };
}

/** Pages of records read per reconciliation at most (1,000 records each). */
const MAX_RECORD_PAGES = 50;

/** Creates the Vonage SMS provider (`name: 'vonage'`). */
export function createVonageSmsProvider(options: VonageOptions): ChannelProvider<SmsMessage> {
  const timeout = (options.timeoutSeconds ?? 30) * 1000;
  const dispatcher: Dispatcher = new Agent({ connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout });
  const now = options.now ?? Date.now;
  const settle = options.settleSeconds ?? 600;

  function credentials(params: Record<string, string>): Record<string, string> {
    const withKey = { api_key: options.apiKey, ...params };
    return options.signatureSecret
      ? signParams(withKey, options.signatureSecret, options.signatureMethod ?? 'md5hash', now())
      : { ...withKey, api_secret: options.apiSecret };
  }

  async function send(message: SmsMessage): Promise<SendResult> {
    const params = credentials({
      from: options.from,
      to: message.to.replace(/^\+/, ''),
      text: message.text,
      type: isGsm7(message.text) ? 'text' : 'unicode',
      'client-ref': message.communicationId,
      'status-report-req': 'true',
      ...(options.callbackUrl ? { callback: options.callbackUrl } : {}),
    });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(new URL('/sms/json', options.apiUrl), {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(params).toString(),
      });
    } catch (err) {
      throw classifyHttpError(err);
    }
    const text = await res.body.text().catch((err: unknown) => {
      throw classifyHttpError(err);
    });
    if (res.statusCode >= 500) throw new ChannelError('not_sent', `http_${res.statusCode}`, `SMS API unavailable (answered ${res.statusCode})`);
    if (res.statusCode === 429) throw new ChannelError('not_sent', 'http_429', 'SMS API rate limit');
    if (res.statusCode >= 400)
      throw new ChannelError('rejected', `http_${res.statusCode}`, `SMS API refused the request: ${res.statusCode} ${text.slice(0, 200)}`);
    let answer: SendAnswer;
    try {
      answer = JSON.parse(text) as SendAnswer;
    } catch {
      throw new ChannelError('unknown', 'invalid_answer', 'SMS API answered something that is not JSON');
    }
    const parts = answer.messages ?? [];
    const sent = parts.filter((p) => p.status === '0' && p['message-id']);
    if (sent.length === 0) {
      const failed = parts[0] ?? {};
      const status = failed.status ?? 'missing';
      throw new ChannelError(
        status === '1' ? 'not_sent' : 'rejected',
        `vonage_status_${status}`,
        `SMS API refused the message: ${failed['error-text'] ?? 'no messages in the answer'}`,
      );
    }
    return {
      provider: 'vonage',
      providerReference: sent[0]!['message-id']!,
      details: {
        parts: sent.map((p) => p['message-id']!),
        'message-count': Number(answer['message-count'] ?? parts.length),
        failed_parts: parts.length - sent.length,
      },
    };
  }

  async function reconcile({ communicationId, attemptedAt }: { communicationId: string; attemptedAt: Date }): Promise<Reconciliation> {
    const age = (now() - attemptedAt.getTime()) / 1000;
    if (age < settle) return { outcome: 'ask_later', retryAfterSeconds: Math.ceil(settle - age), reason: 'records of recent messages may not be listed yet' };
    const start = new Date(attemptedAt.getTime() - 5 * 60_000);
    const end = new Date(Math.min(attemptedAt.getTime() + 60 * 60_000, now()));
    let next: URL | null = new URL('/v2/reports/records', options.reportsUrl);
    next.search = new URLSearchParams({
      account_id: options.apiKey,
      product: 'SMS',
      direction: 'outbound',
      date_start: start.toISOString(),
      date_end: end.toISOString(),
    }).toString();
    const authorization = `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString('base64')}`;
    for (let page = 0; next && page < MAX_RECORD_PAGES; page++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(next, { dispatcher, headers: { authorization, accept: 'application/json' } });
      } catch (err) {
        return { outcome: 'ask_later', retryAfterSeconds: 60, reason: `reports API not reached: ${(err as Error).message}` };
      }
      const body = await res.body.text();
      if (res.statusCode === 401 || res.statusCode === 403)
        return { outcome: 'unknown', reason: `reports API refused access (${res.statusCode}): the message cannot be looked up` };
      if (res.statusCode !== 200) return { outcome: 'ask_later', retryAfterSeconds: 60, reason: `reports API answered ${res.statusCode}` };
      let answer: RecordsAnswer;
      try {
        answer = JSON.parse(body) as RecordsAnswer;
      } catch {
        return { outcome: 'ask_later', retryAfterSeconds: 60, reason: 'reports API answered something that is not JSON' };
      }
      const found = answer.records?.find((r) => r.client_ref === communicationId && r.message_id);
      if (found) return { outcome: 'sent', providerReference: found.message_id!, details: { status: found.status ?? '', error_code: found.error_code ?? '' } };
      const href = answer._links?.next?.href;
      next = href ? new URL(href, options.reportsUrl) : null;
    }
    return next ? { outcome: 'unknown', reason: `more than ${MAX_RECORD_PAGES} pages of records in the window` } : { outcome: 'not_found' };
  }

  return { name: 'vonage', deliveryMethod: 'sms', send, reconcile, close: () => dispatcher.close() };
}
