/**
 * Callback signatures in the manner of Stripe's webhooks: header `t=<unix seconds>,v1=<hex>`,
 * where v1 is HMAC-SHA256 under the shared secret of `<t>.<raw body>`; a timestamp more than the
 * tolerance away from now is refused (with the event id's idempotency, this stops replays).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CallbackRejected } from './provider.js';

/** Seconds a callback's timestamp may differ from now. */
export const TOLERANCE_SECONDS = 300;

/** The signature header of `body` at `timestamp` (unix seconds) under `secret`. */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmac(secret, `${timestamp}.${body}`)}`;
}

/**
 * Checks `header` for `body` under `secret` at `now`.
 * @throws CallbackRejected when missing, malformed, wrong, or outside `TOLERANCE_SECONDS`
 */
export function verifySignature(secret: string, body: string, header: string | undefined, now: Date = new Date()): void {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!header || !Number.isInteger(t) || !parts.v1) throw new CallbackRejected('The signature header is missing or malformed.');
  if (Math.abs(now.getTime() / 1000 - t) > TOLERANCE_SECONDS) throw new CallbackRejected('The signature timestamp is outside the tolerance.');
  const want = Buffer.from(hmac(secret, `${t}.${body}`), 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw new CallbackRejected('The signature does not match.');
}

function hmac(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}
