/**
 * Replacing copies of erased values (docs/api.md section 18, "Erasure"): long values wherever they
 * occur, short ones only as whole strings, JSON keys never, longest first.
 */
import { describe, expect, test } from '@jest/globals';
import { ERASED } from '../../../libs/domain/src/personal-data/registry.js';
import { erasable, likePatterns, scrubJson, scrubStored, scrubText } from '../../../libs/domain/src/personal-data/scrub.js';

describe('scrub', () => {
  const values = erasable(['Ada', 'Ada Lovelace', 'GB', '', 'ada@example.com']);

  test('orders values longest first and drops empties', () => {
    expect(values).toEqual(['ada@example.com', 'Ada Lovelace', 'Ada', 'GB']);
  });

  test('replaces long values inside text, short ones only as a whole string', () => {
    expect(scrubText('Dear Ada Lovelace, write to ada@example.com', values)).toBe(`Dear ${ERASED}, write to ${ERASED}`);
    expect(scrubText('Ada', values)).toBe(ERASED);
    expect(scrubText('GBP', values)).toBe('GBP');
    expect(scrubText('Dear Ada,', values)).toBe('Dear Ada,');
  });

  test('walks JSON strings and keeps keys, numbers and other strings', () => {
    const event = { object: { Ada: 'GB', first_name: 'Ada', currency: 'GBP', amount: 100, tags: ['Ada Lovelace', 'x'] } };
    expect(scrubJson(event, values)).toEqual({ object: { Ada: ERASED, first_name: ERASED, currency: 'GBP', amount: 100, tags: [ERASED, 'x'] } });
  });

  test('stored text is scrubbed as JSON when it is JSON, as text otherwise', () => {
    expect(scrubStored('{"full_name":"Ada Lovelace"}', values)).toBe(`{"full_name":"${ERASED}"}`);
    expect(scrubStored('{not json Ada Lovelace', values)).toBe(`{not json ${ERASED}`);
  });

  test('LIKE patterns escape the wildcards and cover the JSON-escaped form', () => {
    expect(likePatterns(['50%_off', 'say "hi"'])).toEqual(['%50\\%\\_off%', '%say "hi"%', '%say \\\\"hi\\\\"%']);
  });
});
