/**
 * Money formatting of @dms/templates: integer minor units to the currency's written form, exactly
 * (no float rounding), for the three currencies a debt can have (docs/api.md section 5).
 */
import { describe, expect, test } from '@jest/globals';
import { formatMoney, isCurrency } from '@dms/templates';

describe('formatMoney', () => {
  test.each([
    [12500, 'GBP', '£125.00'],
    [12500, 'EUR', '€125.00'],
    [12500, 'USD', '$125.00'],
    [5, 'GBP', '£0.05'],
    [0, 'USD', '$0.00'],
    [-12345, 'EUR', '-€123.45'],
    [123456789, 'GBP', '£1,234,567.89'],
  ])('%d %s -> %s', (minor, currency, written) => {
    expect(formatMoney(minor, currency)).toBe(written);
  });

  test('the largest safe integer and a bigint beyond it keep every digit (no float on the way)', () => {
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'GBP')).toBe('£90,071,992,547,409.91');
    expect(formatMoney(123456789012345678901n, 'USD')).toBe('$1,234,567,890,123,456,789.01');
  });

  test('another locale writes the same amount its own way', () => {
    expect(formatMoney(12500, 'EUR', 'de-DE')).toBe('125,00\u00a0€');
  });

  test('a fractional amount or an unsupported currency is refused', () => {
    expect(() => formatMoney(12.5, 'GBP')).toThrow(/integer number of minor units/);
    expect(() => formatMoney(100, 'JPY')).toThrow(/unsupported currency "JPY"/);
    expect(isCurrency('GBP')).toBe(true);
    expect(isCurrency('gbp')).toBe(false);
  });
});
