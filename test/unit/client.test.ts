/**
 * Pure pieces of the typed client `@dms/client`: the `Link` header's `rel="next"` (RFC 8288) and
 * the wait a `Retry-After` asks for (RFC 9110 section 10.2.3). The client against the real
 * services is test/client.
 */
import { describe, expect, test } from '@jest/globals';
import { nextLink } from '../../clients/typescript/src/client.js';
import { retryAfterMs } from '../../clients/typescript/src/retry.js';

describe('nextLink', () => {
  test('finds rel="next" among several links, in any position, with other parameters', () => {
    const first = '<https://api/debts?limit=10>; rel="first"';
    const next = '<https://api/debts?after=deb_1&limit=10>; rel="next"';
    expect(nextLink(`${first}, ${next}`)).toBe('https://api/debts?after=deb_1&limit=10');
    expect(nextLink(`${next}, ${first}`)).toBe('https://api/debts?after=deb_1&limit=10');
    expect(nextLink('<https://api/x?a=1,2>; title="a, b"; rel="prev next"')).toBe('https://api/x?a=1,2');
    expect(nextLink('<https://api/x>; rel=next')).toBe('https://api/x');
  });

  test('none when absent: no header, only first/prev, or a relation that merely contains "next"', () => {
    expect(nextLink(null)).toBeUndefined();
    expect(nextLink('<https://api/x>; rel="first", <https://api/y>; rel="prev"')).toBeUndefined();
    expect(nextLink('<https://api/x>; rel="nextpage"')).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  const res = (value?: string) => new Response(null, { status: 429, headers: value === undefined ? {} : { 'Retry-After': value } });
  test('seconds or an HTTP date, in milliseconds; nothing for a missing or unreadable value', () => {
    expect(retryAfterMs(res('3'))).toBe(3000);
    expect(retryAfterMs(res('0'))).toBe(0);
    const now = Date.parse('2026-11-01T12:00:00Z');
    expect(retryAfterMs(res('Sun, 01 Nov 2026 12:00:05 GMT'), now)).toBe(5000);
    expect(retryAfterMs(res('Sun, 01 Nov 2026 11:59:00 GMT'), now)).toBe(0);
    expect(retryAfterMs(res())).toBeUndefined();
    expect(retryAfterMs(res('soon'))).toBeUndefined();
    expect(retryAfterMs(res('-1'))).toBeUndefined();
  });
});
