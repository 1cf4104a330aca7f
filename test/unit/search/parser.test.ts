/**
 * Parser of the search language (docs/api.md sections 4 and 10): `term (connective? term)*` with
 * `term := field ([key])? operator value`, AND / OR in any case or spaces (= AND), never mixed,
 * the positions each term keeps for later errors, the term limit, and errors naming the position
 * of what was found instead.
 */
import { describe, expect, test } from '@jest/globals';
import { MAX_TERMS, parseSearch } from '../../../libs/search/src/parser.js';
import { expectSearchError } from './errors.js';

describe('valid queries', () => {
  test('one term, with the positions of its three parts', () => {
    expect(parseSearch('status:prepared')).toEqual({
      connective: 'AND',
      terms: [{ field: 'status', fieldPos: 1, op: ':', opPos: 7, value: 'prepared', valuePos: 8 }],
    });
  });

  test('an AND chain keeps the terms in order', () => {
    expect(parseSearch('status:prepared AND amount_remaining>=1000 AND tag:"late fee"')).toEqual({
      connective: 'AND',
      terms: [
        { field: 'status', fieldPos: 1, op: ':', opPos: 7, value: 'prepared', valuePos: 8 },
        { field: 'amount_remaining', fieldPos: 21, op: '>=', opPos: 37, value: '1000', valuePos: 39 },
        { field: 'tag', fieldPos: 48, op: ':', opPos: 51, value: 'late fee', valuePos: 52 },
      ],
    });
  });

  test.each([':', '=', '>', '>=', '<', '<='] as const)('operator %s', (op) => {
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

  test("the field name is kept as written (case-sensitive); checking it is the compiler's job", () => {
    expect(parseSearch('Status:x').terms[0]!.field).toBe('Status');
  });

  test('spaces join terms as AND; AND and OR are keywords in any case', () => {
    expect(parseSearch('a:1 b:2').connective).toBe('AND');
    expect(parseSearch('a:1 b:2').terms.map((t) => [t.field, t.fieldPos])).toEqual([
      ['a', 1],
      ['b', 5],
    ]);
    for (const and of ['AND', 'and', 'And', 'aNd']) expect(parseSearch(`a:1 ${and} b:2 c:3`)).toMatchObject({ connective: 'AND', terms: [{}, {}, {}] });
    for (const or of ['OR', 'or', 'Or']) expect(parseSearch(`a:1 ${or} b:2 ${or} c:3`)).toMatchObject({ connective: 'OR', terms: [{}, {}, {}] });
  });

  test('OR as a value, and words that merely begin with OR, are not keywords', () => {
    expect(parseSearch('status:OR OR ORDER:1')).toMatchObject({
      connective: 'OR',
      terms: [
        { field: 'status', value: 'OR' },
        { field: 'ORDER', value: '1' },
      ],
    });
  });

  test("a keyed term keeps its key and the key's position", () => {
    expect(parseSearch("metadata['crm']='A 1'").terms).toEqual([
      { field: 'metadata', fieldPos: 1, key: 'crm', keyPos: 10, op: '=', opPos: 16, value: 'A 1', valuePos: 17 },
    ]);
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
    expectSearchError(() => parseSearch('status'), 7, "Expected an operator (:, =, >, >=, <, <=) after 'status' but found end of query");
    expectSearchError(() => parseSearch('status prepared'), 8, "after 'status' but found 'prepared'");
    expectSearchError(() => parseSearch('a:1 AND status "x"'), 16, "after 'status' but found a quoted value");
  });

  test('what cannot join two terms', () => {
    expectSearchError(() => parseSearch('a:"x" "y"'), 7, 'Expected AND, OR, another term or end of query but found a quoted value');
    expectSearchError(() => parseSearch('a:1 :2'), 5, "found ':'");
  });

  test('mixing AND and OR is an error at the first connective that differs', () => {
    expectSearchError(() => parseSearch('a:1 AND b:2 OR c:3'), 13, 'AND and OR cannot be mixed in one query');
    expectSearchError(() => parseSearch('a:1 OR b:2 AND c:3'), 12, 'found AND after OR');
    expectSearchError(() => parseSearch('a:1 or b:2 and c:3'), 12, 'found AND after OR');
    expectSearchError(() => parseSearch('a:1 b:2 OR c:3'), 9, 'found OR after AND');
    expectSearchError(() => parseSearch('a:1 OR b:2 c:3'), 12, 'found a space (AND) after OR');
    expectSearchError(() => parseSearch('a:1 AND b:2 AND c:3 OR d:4'), 21, 'found OR after AND');
  });

  test('a dangling OR, and OR where a field is due', () => {
    expectSearchError(() => parseSearch('a:1 OR'), 7, 'Expected a field name but found end of query');
    expectSearchError(() => parseSearch('OR a:1'), 1, "Expected a field name but found 'OR'");
    expectSearchError(() => parseSearch('a:1 or OR b:1'), 8, "Expected a field name but found 'OR'");
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
