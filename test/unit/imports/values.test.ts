/**
 * The pure rules of file imports (docs/api.md section 16): amounts read to minor units exactly
 * (no floating point: `0.29` is 29, `1.234`, `-5`, `£10` refused), strict dates and timestamps,
 * booleans, the header check per file type, lanes, country names, and the import machine.
 */
import { describe, expect, test } from '@jest/globals';
import {
  checkHeader,
  extraMetadata,
  IMPORT_MACHINE,
  isProblem,
  laneOf,
  LANES,
  parseAmount,
  parseBoolean,
  parseCount,
  parseDate,
  parseTimestamp,
} from '@dms/domain/imports';
import { countryCode } from '../../../libs/domain/src/imports/rows/countries.js';

describe('parseAmount', () => {
  test.each([
    ['104.49', 10449],
    ['0.29', 29],
    ['1.1', 110],
    ['10', 1000],
    ['0.07', 7],
    ['19.99', 1999],
    ['1234567890.01', 123456789001],
  ])('%s is %d minor units', (text, minor) => expect(parseAmount(text)).toBe(minor));

  test('every two-decimal amount up to £100 is exact (where text × 100 in floating point is not)', () => {
    for (let minor = 0; minor <= 10_000; minor++) {
      expect(parseAmount(`${Math.trunc(minor / 100)}.${String(minor % 100).padStart(2, '0')}`)).toBe(minor);
    }
  });

  test.each(['1.234', '-5', '£10', '10£', '1,000.00', '1e3', ' 10', '10 ', '', '.5', '5.', '+5', 'abc', '0x10', 'NaN'])('%p is refused', (text) => {
    const out = parseAmount(text);
    expect(isProblem(out) && out.code).toBe('invalid_amount');
  });

  test('signed amounts where allowed', () => {
    expect(parseAmount('-98.23', true)).toBe(-9823);
    expect(parseAmount('98.23', true)).toBe(9823);
    expect(isProblem(parseAmount('--1', true))).toBe(true);
  });
});

describe('dates and timestamps', () => {
  test.each(['2024-02-29', '1980-10-21', '2031-12-31'])('%s is a date', (d) => expect(parseDate(d)).toBe(d));
  test.each(['2023-02-29', '2024-13-01', '2024-00-10', '0000-01-01', '21/10/1980', '2024-1-1', '2024-01-01T00:00:00Z', ''])('%p is not', (d) =>
    expect(isProblem(parseDate(d))).toBe(true),
  );
  test('timestamps: ISO 8601, UTC when no zone', () => {
    expect(parseTimestamp('2021-12-31T06:10:15.123')).toBe('2021-12-31T06:10:15.123Z');
    expect(parseTimestamp('2021-12-31T06:10:15+01:00')).toBe('2021-12-31T06:10:15+01:00');
    for (const bad of ['2021-12-31 06:10:15', '2021-12-31T24:00:00', '2021-02-30T00:00:00', '2021-12-31', 'yesterday'])
      expect(isProblem(parseTimestamp(bad))).toBe(true);
  });
  test('booleans and counts', () => {
    expect(parseBoolean('True')).toBe(true);
    expect(parseBoolean('false')).toBe(false);
    expect(parseBoolean('')).toBe(false);
    expect(isProblem(parseBoolean('yes'))).toBe(true);
    expect(parseCount('2')).toBe(2);
    expect(isProblem(parseCount('-1'))).toBe(true);
  });
});

describe('headers', () => {
  test('a header with the required columns, optional ones and extra_* matches', () => {
    expect(checkHeader('closure', ['account_number', 'reason', 'note', 'extra_branch'])).toBeUndefined();
    expect(checkHeader('closure', ['note', 'account_number'])).toBeUndefined();
  });
  test('a missing required column, a column twice, an unknown column or a bare extra_ are refused', () => {
    expect(checkHeader('transaction', ['account_number', 'amount'])).toMatchObject({
      code: 'missing_column',
      message: expect.stringContaining('transaction_at'),
    });
    expect(checkHeader('closure', ['account_number', 'reason', 'reason'])).toMatchObject({ code: 'header_mismatch' });
    expect(checkHeader('closure', ['account_number', 'amount'])).toMatchObject({ code: 'header_mismatch', message: expect.stringContaining("'amount'") });
    expect(checkHeader('closure', ['account_number', 'extra_'])).toMatchObject({ code: 'header_mismatch' });
  });
  test('extra_* cells become metadata without the prefix; empty ones are left out', () => {
    expect(extraMetadata({ account_number: 'A', extra_branch: 'Leeds', extra_empty: '' })).toEqual({ branch: 'Leeds' });
  });
});

describe('lanes, countries and the import machine', () => {
  test('one account is always in one lane; accounts spread over every lane', () => {
    expect(laneOf('ACC-000001')).toBe(laneOf('ACC-000001'));
    const used = new Set(Array.from({ length: 500 }, (_, i) => laneOf(`ACC-${i}`)));
    expect(used.size).toBe(LANES);
  });
  test('country names and codes', () => {
    expect(countryCode('United Kingdom')).toBe('GB');
    expect(countryCode('scotland')).toBe('GB');
    expect(countryCode('ie')).toBe('IE');
    expect(countryCode('Germany')).toBe('DE');
    expect(countryCode('UK')).toBe('GB');
    expect(countryCode('Atlantis')).toBeUndefined();
    expect(countryCode('QQ')).toBeUndefined();
  });
  test('queued → processing → completed; a file refused while received is failed; nothing leaves completed or failed', () => {
    expect(IMPORT_MACHINE.require('receiving', 'queue')).toBe('queued');
    expect(IMPORT_MACHINE.require('receiving', 'refuse')).toBe('failed');
    expect(IMPORT_MACHINE.require('queued', 'start')).toBe('processing');
    expect(IMPORT_MACHINE.require('processing', 'complete')).toBe('completed');
    for (const s of ['completed', 'failed'] as const) expect(IMPORT_MACHINE.movesFrom(s)).toEqual([]);
    expect(IMPORT_MACHINE.allows('queued', 'complete')).toBe(false);
  });
});
