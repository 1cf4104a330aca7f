/**
 * Signed requests of the Vonage SMS API (Vonage API documentation, "Signing Messages"): the same
 * scheme signs what we send (`sig` instead of `api_secret`) and what Vonage sends us (delivery
 * receipts and inbound messages, once signed webhooks are enabled for the account).
 *
 * The signed string is every parameter but `sig`, sorted by name, each written `&name=value` with
 * `&` and `=` in values replaced by `_`. `md5hash` (the dashboard's default) is the lowercase MD5
 * of that string followed by the signature secret; `md5`, `sha1`, `sha256` and `sha512` are the
 * uppercase HMAC of the string keyed by the secret. Every signed request carries `timestamp` (Unix
 * seconds) and webhooks a `nonce`: a verifier checks the signature in constant time, refuses a
 * timestamp outside its tolerance (Vonage allows 5 minutes) and, with a replay guard, a nonce it has
 * already seen.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SignatureMethod } from './methods.js';

export { SIGNATURE_METHODS, type SignatureMethod } from './methods.js';

/** Default tolerance between a request's `timestamp` and our clock, seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The signature of `params` (a `sig` among them is ignored). */
export function vonageSignature(params: Record<string, string>, secret: string, method: SignatureMethod): string {
  const signed = Object.keys(params)
    .filter((k) => k !== 'sig')
    .sort()
    .map((k) => `&${k}=${String(params[k]).replace(/[&=]/g, '_')}`)
    .join('');
  if (method === 'md5hash')
    return createHash('md5')
      .update(signed + secret, 'utf8')
      .digest('hex');
  return createHmac(method, secret).update(signed, 'utf8').digest('hex').toUpperCase();
}

/**
 * `params` with `timestamp` (now, Unix seconds, unless already set) and `sig` added.
 * @param now clock in milliseconds (tests move it)
 */
export function signParams(params: Record<string, string>, secret: string, method: SignatureMethod, now: number = Date.now()): Record<string, string> {
  const withTime = { timestamp: String(Math.floor(now / 1000)), ...params };
  return { ...withTime, sig: vonageSignature(withTime, secret, method) };
}

/** Why a signed request was refused. */
export type SignatureFailure = 'missing_signature' | 'bad_signature' | 'stale_timestamp' | 'replayed' | 'wrong_account';

/** A webhook that failed verification: answer 401 and change nothing. */
export class SignatureError extends Error {
  readonly code: SignatureFailure;
  constructor(code: SignatureFailure, message: string) {
    super(message);
    this.name = 'SignatureError';
    this.code = code;
  }
}

/**
 * Remembers what it has seen for a while: `firstSeen` resolves true the first time a key is
 * offered within `ttlSeconds`, false after. An API with several instances needs a shared one, and
 * it should record the key in the same transaction as the request's effect (e.g. insert a row
 * with a unique nonce in the transaction that updates the communication, and call
 * `verifySignedParams` inside it): if processing failed after the key was recorded elsewhere, the
 * sender's retry of that same request would be refused. `memoryReplayGuard` serves one process.
 */
export interface ReplayGuard {
  firstSeen(key: string, ttlSeconds: number): Promise<boolean>;
}

/** A replay guard in this process's memory (lru-cache with per-entry TTL), bounded to `max` keys. */
export function memoryReplayGuard(max = 100_000): ReplayGuard {
  const seen = new LRUCache<string, true>({ max, ttlAutopurge: false });
  return {
    async firstSeen(key, ttlSeconds) {
      if (seen.has(key)) return false;
      seen.set(key, true, { ttl: ttlSeconds * 1000 });
      return true;
    },
  };
}

export interface VerifyOptions {
  /** The account's signature secret (`SMS_SIGNATURE_SECRET`). */
  secret: string;
  method: SignatureMethod;
  /** When set, `api-key` of the request must equal it (one endpoint, one account). */
  apiKey?: string;
  /** Largest difference between `timestamp` and now, seconds (default 300). */
  toleranceSeconds?: number;
  /** Refuses a nonce (or, without one, a signature) seen before. */
  replayGuard?: ReplayGuard;
  /** Clock in milliseconds (tests move it). */
  now?: () => number;
}

function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given.toLowerCase(), 'utf8');
  const b = Buffer.from(expected.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Verifies a signed webhook's parameters (query string, form or JSON body, all values strings).
 * Order: signature (constant time), timestamp tolerance, account, then the replay guard, so a
 * forged request never fills the guard.
 * @throws SignatureError naming the failure
 */
export async function verifySignedParams(params: Record<string, string>, options: VerifyOptions): Promise<void> {
  const sig = params.sig;
  if (!sig || !params.timestamp)
    throw new SignatureError('missing_signature', 'the request carries no sig and timestamp (enable signed webhooks for the account)');
  if (!sameSignature(sig, vonageSignature(params, options.secret, options.method))) throw new SignatureError('bad_signature', 'the signature does not match');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = (options.now ?? Date.now)() / 1000 - Number(params.timestamp);
  if (!Number.isFinite(age) || Math.abs(age) > tolerance)
    throw new SignatureError('stale_timestamp', `timestamp is ${Math.round(age)} s from now (tolerance ${tolerance} s)`);
  if (options.apiKey !== undefined && params['api-key'] !== options.apiKey) throw new SignatureError('wrong_account', 'api-key is not this account');
  if (options.replayGuard && !(await options.replayGuard.firstSeen(`vonage:${params.nonce ?? sig.toLowerCase()}`, 2 * tolerance))) {
    throw new SignatureError('replayed', 'this request was already received');
  }
}
