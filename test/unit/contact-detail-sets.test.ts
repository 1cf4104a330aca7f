/**
 * The rules a whole set of contact details follows (libs/domain/src/contact-details/sets.ts; docs/api.md
 * sections 10 and 15): the last primary entry of a type wins, entries match visible details by type
 * and stored value (each detail serving one entry), and kept details are written demotions first.
 */
import { describe, expect, test } from '@jest/globals';
import { demotionsFirst, detailKey, detailParam, lastPrimaryWins, matchDetails } from '../../libs/domain/src/contact-details/sets.js';

const row = (id: string, type: string, value: string | null, address: unknown = null) => ({ id, type, value, address });

describe('contact detail sets', () => {
  test('entries are named contact_details[i]', () => {
    expect(detailParam(3)).toBe('contact_details[3]');
  });

  test('the last primary entry of each type wins; the others are not primary', () => {
    const out = lastPrimaryWins([
      { type: 'email', primary: true },
      { type: 'phone_number', primary: true },
      { type: 'email' },
      { type: 'email', primary: true },
    ]);
    expect(out.map((e) => e.primary)).toEqual([false, true, false, true]);
  });

  test('entries match visible details of the same type and value, each detail at most once; the rest are unmatched', () => {
    const rows = [
      row('a', 'email', 'x@e.example'),
      row('b', 'email', 'x@e.example'),
      row('c', 'phone_number', '+441'),
      row('d', 'address', null, { line_1: '1' }),
    ];
    const keys = [
      detailKey('email', { value: 'x@e.example', address: null }),
      detailKey('email', { value: 'x@e.example', address: null }),
      detailKey('email', { value: 'x@e.example', address: null }),
      detailKey('phone_number', { value: '+442', address: null }),
      detailKey('address', { value: null, address: { line_1: '1' } }),
    ];
    const { kept, unmatched } = matchDetails(keys, rows);
    expect(kept.map((r) => r?.id)).toEqual(['a', 'b', undefined, undefined, 'd']);
    expect(unmatched.map((r) => r.id)).toEqual(['c']);
    // The same text under another type is another detail.
    expect(detailKey('email', { value: '+441', address: null })).not.toBe(detailKey('phone_number', { value: '+441', address: null }));
  });

  test('kept details are written non-primary first, each group in the order given', () => {
    expect(demotionsFirst([{ primary: true }, { primary: false }, { primary: true }, { primary: false }])).toEqual([1, 3, 0, 2]);
  });
});
