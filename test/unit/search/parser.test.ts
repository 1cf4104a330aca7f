/**
 * Parser of the search language (docs/api.md section 4): `term (AND term)*` with
 * `term := field operator value`, the positions each term keeps for later errors, the term
 * limit, and errors naming the position of what was found instead.
 */
import { describe, expect, test } from '@jest/globals';
import { MAX_TERMS, parseSearch } from '../../../services/api/src/search/parser.js';
import { expectSearchError } from './errors.js';

describe('valid queries', () => {
  test('one term, with the positions of its three parts', () => {
    expect(parseSearch('status:prepared')).toEqual({
      terms: [{ field: 'status', fieldPos: 1, op: ':', opPos: 7, value: 'prepared', valuePos: 8 }],
    });
  });

  test('an AND chain keeps the terms in order', () => {
    expect(parseSearch('status:prepared AND amount_remaining>=1000 AND tag:"late fee"')).toEqual({
      terms: [
        { field: 'status', fieldPos: 1, op: ':', opPos: 7, value: 'prepared', valuePos: 8 },
        { field: 'amount_remaining', fieldPos: 21, op: '>=', opPos: 37, value: '1000', valuePos: 39 },
        { field: 'tag', fieldPos: 48, op: ':', opPos: 51, value: 'late fee', valuePos: 52 },
      ],
    });
  });

  test.each([':', '>', '>=', '<', '<='] as const)('operator %s', (op) => {
    expect(parseSearch(`amount_remaining${op}5`).terms).toEqual([
      { field: 'amount_remaining', fieldPos: 1, op, opPos: 17, value: '5', valuePos: 17 + op.length },
    ]);
  });

  test('the same field may appear twice (a range)', () => {
    expect(parseSearch('created_at>=2026-01-01 AND created_at<2026-02-01').terms.map((t) => [t.field, t.op, t.value])).toEqual([
      ['created_at', '>=', '2026-01-01'],
      ['created_at', '<', '2026-02-01'],
    ]);
  });

  test('AND as a value, and words that merely begin with AND, are not keywords', () => {
    expect(parseSearch('status:AND AND ANDY:1').terms.map((t) => [t.field, t.value])).toEqual([
      ['status', 'AND'],
      ['ANDY', '1'],
    ]);
  });

  test('the field name is kept as written (case-sensitive); checking it is the compiler\'s job', () => {
    expect(parseSearch('Status:x').terms[0]!.field).toBe('Status');
  });

  test(`${MAX_TERMS} terms are accepted`, () => {
    expect(MAX_TERMS).toBe(20);
    const input = Array.from({ length: MAX_TERMS }, () => 'f:1').join(' AND ');
    expect(parseSearch(input).terms).toHaveLength(MAX_TERMS);
  });
});

describe('errors name the position of what was found', () => {
  test('an empty or blank query', () => {
    expectSearchError(() => parseSearch(''), 1, 'Expected a field name but found end of query');
    expectSearchError(() => parseSearch('   '), 4, 'Expected a field name but found end of query');
  });

  test('a query starting with AND, or with two ANDs in a row', () => {
    expectSearchError(() => parseSearch('AND a:1'), 1, "Expected a field name but found 'AND'");
    expectSearchError(() => parseSearch('a:1 AND AND b:2'), 9, "Expected a field name but found 'AND'");
  });

  test('a dangling AND', () => {
    expectSearchError(() => parseSearch('a:1 AND'), 8, 'Expected a field name but found end of query');
    expectSearchError(() => parseSearch('a:1 AND '), 9, 'Expected a field name but found end of query');
  });

  test('a quoted value where a field name is due', () => {
    expectSearchError(() => parseSearch('"status":x'), 1, 'Expected a field name but found a quoted value');
  });

  test('a field without an operator', () => {
    expectSearchError(() => parseSearch('status'), 7, "Expected an operator (:, >, >=, <, <=) after 'status' but found end of query");
    expectSearchError(() => parseSearch('status prepared'), 8, "after 'status' but found 'prepared'");
    expectSearchError(() => parseSearch('a:1 AND status "x"'), 16, "after 'status' but found a quoted value");
  });

  test('terms not joined by AND', () => {
    expectSearchError(() => parseSearch('a:1 b:2'), 5, "Expected AND or end of query but found 'b'");
    expectSearchError(() => parseSearch('a:1 OR b:2'), 5, "Expected AND or end of query but found 'OR'");
    expectSearchError(() => parseSearch('a:"x" "y"'), 7, 'Expected AND or end of query but found a quoted value');
  });

  test('a lower-case and gets a hint, OR does not', () => {
    const err = expectSearchError(() => parseSearch('a:1 and b:2'), 5, "found 'and' (write AND in capitals)");
    expect(err.message).toBe("Expected AND or end of query but found 'and' (write AND in capitals) at position 5.");
    expect(expectSearchError(() => parseSearch('a:1 And b:2'), 5).message).toContain('write AND in capitals');
    expect(expectSearchError(() => parseSearch('a:1 OR b:2'), 5).message).not.toContain('capitals');
  });

  test(`more than ${MAX_TERMS} terms points at the first term too many`, () => {
    const input = Array.from({ length: MAX_TERMS + 1 }, () => 'f:1').join(' AND ');
    // Each 'f:1 AND ' is 8 characters, so term 21 starts at 20 * 8 + 1.
    expectSearchError(() => parseSearch(input), 161, `A query may have at most ${MAX_TERMS} terms`);
  });

  test('lexer errors come through unchanged', () => {
    expectSearchError(() => parseSearch('a:1 AND b:'), 11, "Expected a value after ':'");
    expectSearchError(() => parseSearch('a:"open'), 3, 'Unterminated');
  });
});
