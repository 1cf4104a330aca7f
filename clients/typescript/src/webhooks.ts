/**
 * Verification of webhook deliveries, for receivers (docs/api.md section 7, and "Verifying
 * signatures" in the README), in both signature schemes an endpoint may choose (`signature_scheme`):
 *
 * - `standard`: Standard Webhooks. Headers `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature` (space-separated `v1,<base64>`; several during a secret rotation). The
 *   signature is HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed by the
 *   base64 part of the endpoint's `whsec_…` secret, decoded.
 * - `hmac_sha256_hex`: the public API's own. One header `Ophelos-Signature:
 *   t=<unix seconds>,v1=<hex>` (one `v1=` per secret during a rotation, the newest last), the hex
 *   HMAC-SHA256 over `<t>.<raw body>` keyed by the signing secret as UTF-8 text.
 *
 * Both check the timestamp against a tolerance (default 5 minutes) to refuse replays, compare in
 * constant time, and return the parsed event. Give them the raw body as received (a string or
 * bytes): a re-serialised JSON object does not verify.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The delivery is not authentic, or too old or too new. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Options of both verifiers. */
export interface VerifyOptions {
  /** Largest difference between the signature's time and now, seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in unix seconds (default the clock). */
  now?: number;
}

/** Header name of the `hmac_sha256_hex` scheme. */
export const HMAC_SHA256_HEX_HEADER = 'Ophelos-Signature';

type Headers = Record<string, string | string[] | undefined> | globalThis.Headers;

function header(headers: Headers, name: string): string | undefined {
  if (typeof (headers as globalThis.Headers).get === 'function') return (headers as globalThis.Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === wanted) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function checkTime(seconds: string | undefined, opts: VerifyOptions): void {
  if (!seconds || !/^\d+$/.test(seconds)) throw new WebhookVerificationError('missing or malformed timestamp');
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(seconds)) > (opts.toleranceSeconds ?? 300)) throw new WebhookVerificationError('timestamp outside the tolerance');
}

/**
 * Verifies a `standard` (Standard Webhooks) delivery.
 * @param secret the endpoint's signing secret, `whsec_<base64>`
 * @param headers the request's headers (Node's `IncomingHttpHeaders` or a fetch `Headers`)
 * @param body the raw body
 * @returns the parsed event
 * @throws WebhookVerificationError when a header is missing, the time is off, or no signature matches
 */
export function verifyStandardWebhook<T = unknown>(secret: string, headers: Headers, body: string | Uint8Array, opts: VerifyOptions = {}): T {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !signatures) throw new WebhookVerificationError('missing webhook-id or webhook-signature header');
  checkTime(timestamp, opts);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${id}.${timestamp}.${text(body)}`)
    .digest();
  const matches = signatures
    .split(' ')
    .map((s) => s.split(','))
    .some(([version, sig]) => version === 'v1' && sig !== undefined && sameBytes(Buffer.from(sig, 'base64'), expected));
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(text(body)) as T;
}

/**
 * Verifies an `hmac_sha256_hex` delivery (header `Ophelos-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`).
 * @param secret the endpoint's signing secret, used as UTF-8 text
 * @param signature the header's value
 * @param body the raw body
 * @returns the parsed event
 * @throws WebhookVerificationError when the header is malformed, the time is off, or no `v1` matches
 */
export function verifyHmacSha256HexWebhook<T = unknown>(secret: string, signature: string | undefined, body: string | Uint8Array, opts: VerifyOptions = {}): T {
  const parts = (signature ?? '').split(',').map((p) => p.trim().split(/=(.*)/s));
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1 = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !v1.length) throw new WebhookVerificationError(`malformed ${HMAC_SHA256_HEX_HEADER} header`);
  checkTime(t, opts);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${t}.${text(body)}`)
    .digest();
  if (!v1.some((hex) => /^[0-9a-f]+$/i.test(hex) && sameBytes(Buffer.from(hex, 'hex'), expected))) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(text(body)) as T;
}
