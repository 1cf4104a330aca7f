/**
 * Pure text helpers of @dms/channels: the GSM 7-bit alphabet test that picks the SMS `type`, the
 * Windows-1252 filter of letter text, the postal address block, and the fields of a delivery
 * status report (RFC 3464 section 2.1).
 */
import { describe, expect, test } from '@jest/globals';
import { addressLines, isGsm7, parseDeliveryStatus, toWinAnsi } from '@dms/channels';

test('isGsm7: the default alphabet and its extension table, nothing else', () => {
  expect(isGsm7('Hello £5 @ 10:00 {ok} [x] ~ | € ^ \\ ÄÖÑÜ§¿ äöñüà\n')).toBe(true);
  expect(isGsm7('Owing: 5 ₹')).toBe(false);
  expect(isGsm7('emoji 😀')).toBe(false);
  expect(isGsm7('ç')).toBe(false); // only the capital Ç is in the alphabet
});

test('toWinAnsi keeps Western European text, £ and €, and prints anything else as ?', () => {
  expect(toWinAnsi('Zoë owes £5 / €5 — “quoted”\nłódź 😀')).toBe('Zoë owes £5 / €5 — “quoted”\n?ód? ?');
  expect(toWinAnsi('a\r\nb\rc\td\u0007')).toBe('a\nb\nc    d?');
});

test('addressLines: name, lines, town, county, upper-case postcode; the country only when abroad', () => {
  expect(
    addressLines('Ann Example', { line_1: '1 High Street', line_2: null, city: 'Leeds', county: 'West Yorkshire', postal_code: 'ls1 1aa', country: 'GB' }),
  ).toEqual(['Ann Example', '1 High Street', 'Leeds', 'West Yorkshire', 'LS1 1AA']);
  expect(addressLines(null, { line_1: 'Rue 1', city: 'Paris', postal_code: '75001', country: 'France' })).toEqual(['Rue 1', 'Paris', '75001', 'France']);
});

describe('parseDeliveryStatus', () => {
  test('per-message then per-recipient groups, folded lines joined, names lowercased', () => {
    const body =
      'Reporting-MTA: dns; mx.example.com\r\n\r\nFinal-Recipient: rfc822; a@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1\r\n  user unknown\r\n\r\nFinal-Recipient: rfc822; b@example.org\r\nAction: delayed\r\nStatus: 4.4.1\r\n';
    expect(parseDeliveryStatus(body)).toEqual([
      { 'reporting-mta': 'dns; mx.example.com' },
      { 'final-recipient': 'rfc822; a@example.org', action: 'failed', status: '5.1.1', 'diagnostic-code': 'smtp; 550 5.1.1 user unknown' },
      { 'final-recipient': 'rfc822; b@example.org', action: 'delayed', status: '4.4.1' },
    ]);
  });
});
