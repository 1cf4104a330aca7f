/**
 * Timestamps of list pages (docs/api.md section 3: RFC 3339 UTC with milliseconds): the API reads
 * them as PostgreSQL's text in UTC sessions and `iso` rewrites that text; the result must be what
 * node-postgres's own parsing into a `Date` followed by `toISOString` gave before, for any instant.
 */
import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { iso } from '../../libs/domain/src/kernel/schemas.js';

/** What the API wrote before: node-postgres's timestamptz parser, then `toISOString`. */
const viaDate = (text: string) => (pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text')(text) as Date).toISOString();

describe('iso of PostgreSQL timestamptz text', () => {
  test.each([
    '2026-11-23 01:31:26.123456+00',
    '2026-11-23 01:31:26+00',
    '2026-11-23 01:31:26.5+00',
    '2026-11-23 01:31:26.12+00',
    '2026-11-23 01:31:26.999999+00',
    '0999-01-01 00:00:00+00',
    '2026-11-23 01:31:26.1234+05:30',
    '2026-11-23 01:31:26.1-01',
  ])('%s', (text) => {
    expect(iso(text)).toBe(viaDate(text));
  });

  test('random instants, with and without fractions', () => {
    for (let i = 0; i < 5000; i++) {
      const at = new Date(Date.UTC(1970, 0, 1) + Math.floor(Math.random() * 2.5e12)).toISOString().slice(0, 19).replace('T', ' ');
      const micros = String(Math.floor(Math.random() * 1e6))
        .padStart(6, '0')
        .replace(/0+$/, '');
      const text = `${at}${i % 2 && micros ? `.${micros}` : ''}+00`;
      expect(iso(text)).toBe(viaDate(text));
    }
  });

  test('a Date and null as before', () => {
    expect(iso(new Date(Date.UTC(2026, 0, 31, 12, 0, 0, 7)))).toBe('2026-01-31T12:00:00.007Z');
    expect(iso(null)).toBeNull();
  });
});
