/**
 * The retry schedule of @dms/webhook-delivery (docs/api.md section 7): backoff steps with ±jitter,
 * the receiver's Retry-After honoured (stretching, never shortening, capped at the longest step),
 * and exhaustion after the last step.
 */
import { describe, expect, test } from '@jest/globals';
import { decideAfterAttempt, parseRetryAfter, parseSchedule, retryDelaySeconds } from '@dms/webhook-delivery';

const SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];
const JITTER = 0.1;
const policy = { schedule: SCHEDULE, jitter: JITTER };

/** A deterministic stand-in for Math.random returning `values` in turn. */
const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

describe('retryDelaySeconds', () => {
  test('the delay after attempt n is schedule[n], varied by at most ±10%', () => {
    for (let attempt = 1; attempt < SCHEDULE.length; attempt++) {
      const base = SCHEDULE[attempt]!;
      expect(retryDelaySeconds(SCHEDULE, attempt, JITTER, undefined, () => 0)).toBeCloseTo(base * 0.9, 9);
      expect(retryDelaySeconds(SCHEDULE, attempt, JITTER, undefined, () => 0.5)).toBeCloseTo(base, 9);
      expect(retryDelaySeconds(SCHEDULE, attempt, JITTER, undefined, () => 1)).toBeCloseTo(base * 1.1, 9);
    }
  });

  test('with Math.random, 10,000 delays stay within the jitter bounds and spread across them', () => {
    const delays = Array.from({ length: 10_000 }, () => retryDelaySeconds(SCHEDULE, 2, JITTER)!);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(270);
    expect(Math.max(...delays)).toBeLessThanOrEqual(330);
    expect(Math.min(...delays)).toBeLessThan(275);
    expect(Math.max(...delays)).toBeGreaterThan(325);
  });

  test('no jitter gives the schedule exactly', () => {
    expect(SCHEDULE.slice(1).map((_, i) => retryDelaySeconds(SCHEDULE, i + 1, 0))).toEqual(SCHEDULE.slice(1));
  });

  test('a longer Retry-After stretches the delay', () => {
    expect(retryDelaySeconds(SCHEDULE, 1, JITTER, 120, () => 0.5)).toBe(120);
  });

  test('a shorter Retry-After never shortens it', () => {
    expect(retryDelaySeconds(SCHEDULE, 2, JITTER, 1, () => 0.5)).toBe(300);
    expect(retryDelaySeconds(SCHEDULE, 2, JITTER, 0, () => 0)).toBeCloseTo(270, 9);
  });

  test('Retry-After is capped at the longest step of the schedule', () => {
    expect(retryDelaySeconds(SCHEDULE, 1, JITTER, 1_000_000, () => 0.5)).toBe(36000);
    expect(retryDelaySeconds([0, 1, 2], 1, 0, 60)).toBe(2);
  });

  test('after the last step there is no retry, Retry-After or not', () => {
    expect(retryDelaySeconds(SCHEDULE, SCHEDULE.length, JITTER)).toBeNull();
    expect(retryDelaySeconds(SCHEDULE, SCHEDULE.length + 3, JITTER, 5)).toBeNull();
    expect(retryDelaySeconds([0], 1, JITTER)).toBeNull();
  });
});

describe('decideAfterAttempt', () => {
  const now = Date.UTC(2026, 10, 1, 12, 0, 0);

  test('success ends the delivery whatever the attempt', () => {
    expect(decideAfterAttempt(true, 1, policy, undefined, now)).toEqual({ move: 'succeed' });
    expect(decideAfterAttempt(true, SCHEDULE.length, policy, 30, now)).toEqual({ move: 'succeed' });
  });

  test('a failure before the last step retries after the jittered delay', () => {
    const decision = decideAfterAttempt(false, 1, policy, undefined, now, sequence(0));
    expect(decision).toEqual({ move: 'retry', nextAttemptAt: new Date(now + 4500) });
  });

  test("a failure honours the receiver's Retry-After", () => {
    expect(decideAfterAttempt(false, 1, policy, 60, now, sequence(0.5))).toEqual({ move: 'retry', nextAttemptAt: new Date(now + 60_000) });
  });

  test('a failure of the last step exhausts the delivery', () => {
    expect(decideAfterAttempt(false, SCHEDULE.length, policy, undefined, now)).toEqual({ move: 'exhaust' });
    expect(decideAfterAttempt(false, SCHEDULE.length, policy, 5, now)).toEqual({ move: 'exhaust' });
  });

  test('a whole schedule of failures: retries at every step, then exhaustion', () => {
    const moves = SCHEDULE.map((_, i) => decideAfterAttempt(false, i + 1, policy, undefined, now, sequence(0.5)));
    expect(moves.slice(0, -1).map((m) => (m.move === 'retry' ? (m.nextAttemptAt.getTime() - now) / 1000 : m.move))).toEqual(SCHEDULE.slice(1));
    expect(moves.at(-1)).toEqual({ move: 'exhaust' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-01T12:00:00Z');

  test('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
    expect(parseRetryAfter(['30', '60'], now)).toBe(30);
  });

  test('reads an HTTP-date as seconds from now, never negative', () => {
    expect(parseRetryAfter('Sun, 01 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sun, 01 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  test('ignores absent or unparsable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('parseSchedule', () => {
  test('reads comma-separated seconds', () => {
    expect(parseSchedule('0,5,300')).toEqual([0, 5, 300]);
    expect(parseSchedule(' 0 , 0.5 ,2')).toEqual([0, 0.5, 2]);
  });

  test.each(['', '0,,5', '0,-5', 'a,b', '5s'])('refuses %p', (spec) => {
    expect(() => parseSchedule(spec)).toThrow('comma-separated list of non-negative numbers');
  });
});
