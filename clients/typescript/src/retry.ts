/**
 * Retries of requests the API asks to be retried: 429 `rate_limited` and 503
 * `service_unavailable`, after the response's `Retry-After` (RFC 9110 section 10.2.3, seconds or
 * an HTTP date) or, without one, an exponential backoff with full jitter. A network error is
 * retried the same way. Writes are safe to repeat because every write carries an
 * `Idempotency-Key` (see client.ts), the same on each attempt.
 */

/** Settings of {@link withRetries}. */
export interface RetryOptions {
  /** Attempts after the first (default 3; 0 turns retries off). */
  retries?: number;
  /** First backoff without `Retry-After`, milliseconds (default 500); doubles each attempt. */
  baseDelayMs?: number;
  /** Longest wait, `Retry-After` included, milliseconds (default 60 000). */
  maxDelayMs?: number;
  /** How to wait (default a timer); tests and schedulers may pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** Random number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

/** Statuses that mean "try again later". */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The wait a response asks for: `Retry-After` in seconds or as an HTTP date, in milliseconds;
 * undefined when absent or unreadable.
 */
export function retryAfterMs(res: Response, now = Date.now()): number | undefined {
  const value = res.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date (IMF-fixdate, `Sun, 01 Nov 2026 12:00:05 GMT`) starts with the day's name.
  const at = /^[A-Za-z]{3},/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps `doFetch` so that 429 and 503 answers and network errors are retried. The request is
 * cloned before each attempt, so its body is sent again.
 * @returns the last response (a 429 or 503 when every attempt got one)
 * @throws the last network error when every attempt failed with one
 */
export function withRetries(doFetch: (req: Request) => Promise<Response>, opts: RetryOptions = {}): (req: Request) => Promise<Response> {
  const retries = opts.retries ?? 3;
  const base = opts.baseDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 60_000;
  const sleep = opts.sleep ?? timer;
  const random = opts.random ?? Math.random;
  return async (req) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      let res: Response;
      try {
        res = await doFetch(last ? req : req.clone());
      } catch (err) {
        if (last) throw err;
        await sleep(Math.min(max, random() * base * 2 ** attempt));
        continue;
      }
      if (last || !RETRIED_STATUSES.has(res.status)) return res;
      const asked = retryAfterMs(res);
      await res.body?.cancel();
      await sleep(Math.min(max, asked ?? random() * base * 2 ** attempt));
    }
  };
}
