/**
 * The retry schedule (docs/api.md section 7): attempts at roughly 0 s, 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h after the previous one, each delay varied by random jitter so a receiver that
 * comes back is not hit by every dispatcher's retries at the same instant. A receiver's
 * `Retry-After` (RFC 9110 section 10.2.3) can stretch a delay, never shorten it, up to the
 * schedule's longest step.
 */

/** How retries are spaced: the dispatcher's `DISPATCH_SCHEDULE_SECONDS` and `DISPATCH_JITTER`. */
export interface RetryPolicy {
  /** Delay before each attempt, seconds; `schedule[0]` is the first attempt's (0: at once). */
  schedule: readonly number[];
  /** Fraction: each delay is multiplied by a uniform factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
}

/** What follows an attempt: the move of states.ts, with the retry's due time for `retry`. */
export type AttemptDecision = { move: 'succeed' } | { move: 'retry'; nextAttemptAt: Date } | { move: 'exhaust' };

/**
 * Parses `"0,5,300"` into delays in seconds.
 * @throws Error when empty, or an entry is not a non-negative number
 */
export function parseSchedule(spec: string): number[] {
  const parts = spec.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === '' || !/^\d+(\.\d+)?$/.test(p))) {
    throw new Error('must be a comma-separated list of non-negative numbers of seconds');
  }
  return parts.map(Number);
}

/**
 * Seconds to wait before the attempt after failed attempt number `attempt` (1-based), or null when
 * `attempt` was the schedule's last.
 * @param jitter fraction: the delay is multiplied by a uniform factor in [1 - jitter, 1 + jitter]
 * @param retryAfterSeconds the receiver's Retry-After, if any
 * @param random injectable for determinism; defaults to Math.random
 */
export function retryDelaySeconds(
  schedule: readonly number[],
  attempt: number,
  jitter: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | null {
  if (attempt >= schedule.length) return null;
  const base = schedule[attempt]!;
  const jittered = base * (1 - jitter + 2 * jitter * random());
  const ceiling = Math.max(...schedule);
  return retryAfterSeconds !== undefined ? Math.max(jittered, Math.min(retryAfterSeconds, ceiling)) : jittered;
}

/**
 * Decides what follows attempt number `attempt` (1-based): success ends the delivery, a failure
 * schedules the next attempt while the schedule lasts and exhausts the delivery after its last.
 * @param retryAfterSeconds the receiver's Retry-After on a failure, if any
 * @param now when the attempt ended (ms since the epoch); the retry is due `delay` seconds later
 */
export function decideAfterAttempt(
  ok: boolean,
  attempt: number,
  policy: RetryPolicy,
  retryAfterSeconds?: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): AttemptDecision {
  if (ok) return { move: 'succeed' };
  const delay = retryDelaySeconds(policy.schedule, attempt, policy.jitter, retryAfterSeconds, random);
  return delay === null ? { move: 'exhaust' } : { move: 'retry', nextAttemptAt: new Date(now + delay * 1000) };
}

/**
 * Reads a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3).
 * @returns seconds from `now`, or undefined when absent or unparsable
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
