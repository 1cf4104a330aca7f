/**
 * Lexer of the search language (docs/api.md section 4): tokens with their 1-based positions,
 * bare and quoted values, escapes, and errors that name the position of the first bad character.
 */
import { describe, expect, test } from '@jest/globals';
import { MAX_QUERY_LENGTH, OPERATORS, tokenize } from '../../../libs/search/src/lexer.js';
import { expectSearchError } from './errors.js';

describe('tokens and positions', () => {
  test('a single equality term', () => {
    expect(tokenize('status:prepared')).toEqual([
      { kind: 'word', text: 'status', pos: 1 },
      { kind: 'op', op: ':', pos: 7 },
      { kind: 'value', text: 'prepared', quoted: false, pos: 8 },
      { kind: 'eof', pos: 16 },
    ]);
  });

  test('two-character operators are read whole, not as > then =', () => {
    expect(tokenize('amount_remaining>=1000')).toEqual([
      { kind: 'word', text: 'amount_remaining', pos: 1 },
      { kind: 'op', op: '>=', pos: 17 },
      { kind: 'value', text: '1000', quoted: false, pos: 19 },
      { kind: 'eof', pos: 23 },
    ]);
    expect(tokenize('a<=1')[1]).toEqual({ kind: 'op', op: '<=', pos: 2 });
  });

  test.each([
    [':', 'a:1'],
    ['>', 'a>1'],
    ['>=', 'a>=1'],
    ['<', 'a<1'],
    ['<=', 'a<=1'],
  ])('operator %s', (op, input) => {
    const tokens = tokenize(input);
    expect(tokens[1]).toEqual({ kind: 'op', op, pos: 2 });
    expect(tokens[2]).toEqual({ kind: 'value', text: '1', quoted: false, pos: 2 + op.length });
  });

  test('the operator list is exactly : = > >= < <= (section 10 adds =)', () => {
    expect([...OPERATORS].sort()).toEqual([':', '=', '<', '<=', '>', '>='].sort());
  });

  test('= is an operator of its own, and >= / <= are still read whole', () => {
    expect(tokenize('a=1 b>=2')).toEqual([
      { kind: 'word', text: 'a', pos: 1 },
      { kind: 'op', op: '=', pos: 2 },
      { kind: 'value', text: '1', quoted: false, pos: 3 },
      { kind: 'word', text: 'b', pos: 5 },
      { kind: 'op', op: '>=', pos: 6 },
      { kind: 'value', text: '2', quoted: false, pos: 8 },
      { kind: 'eof', pos: 9 },
    ]);
  });

  test('dotted field names are one word', () => {
    expect(tokenize('customer.email:a@b.c')[0]).toEqual({ kind: 'word', text: 'customer.email', pos: 1 });
  });

  test('a keyed field reads its quoted key: metadata[\'k\'] and metadata["k"]', () => {
    expect(tokenize("metadata['crm id']:x")[0]).toEqual({ kind: 'word', text: 'metadata', pos: 1, key: 'crm id', keyPos: 10 });
    expect(tokenize('metadata["a\\"b"]:x')[0]).toEqual({ kind: 'word', text: 'metadata', pos: 1, key: 'a"b', keyPos: 10 });
  });

  test("single-quoted values: \\' stands for a quote, double quotes are plain text", () => {
    expect(tokenize("tag:'it\\'s \"x\"'")[2]).toEqual({ kind: 'value', text: 'it\'s "x"', quoted: true, pos: 5 });
  });

  test("a single quote inside a bare value stays text (old queries: O'Brien)", () => {
    expect(tokenize("account_number:O'Brien")[2]).toEqual({ kind: 'value', text: "O'Brien", quoted: false, pos: 16 });
  });

  test('an AND chain keeps every position', () => {
    expect(tokenize('a<=5 AND b>2 AND c<3')).toEqual([
      { kind: 'word', text: 'a', pos: 1 },
      { kind: 'op', op: '<=', pos: 2 },
      { kind: 'value', text: '5', quoted: false, pos: 4 },
      { kind: 'word', text: 'AND', pos: 6 },
      { kind: 'word', text: 'b', pos: 10 },
      { kind: 'op', op: '>', pos: 11 },
      { kind: 'value', text: '2', quoted: false, pos: 12 },
      { kind: 'word', text: 'AND', pos: 14 },
      { kind: 'word', text: 'c', pos: 18 },
      { kind: 'op', op: '<', pos: 19 },
      { kind: 'value', text: '3', quoted: false, pos: 20 },
      { kind: 'eof', pos: 21 },
    ]);
  });

  test('spaces, tabs and newlines separate tokens and may surround operators', () => {
    expect(tokenize(' \t\n\rstatus  :  prepared \n')).toEqual([
      { kind: 'word', text: 'status', pos: 5 },
      { kind: 'op', op: ':', pos: 13 },
      { kind: 'value', text: 'prepared', quoted: false, pos: 16 },
      { kind: 'eof', pos: 26 },
    ]);
  });

  test('words are letters, digits and underscores, not starting with a digit', () => {
    expect(tokenize('_x9_Y:1')[0]).toEqual({ kind: 'word', text: '_x9_Y', pos: 1 });
    expect(tokenize('ANDY:1')[0]).toEqual({ kind: 'word', text: 'ANDY', pos: 1 });
  });

  test('an empty or blank query is just eof at length + 1', () => {
    expect(tokenize('')).toEqual([{ kind: 'eof', pos: 1 }]);
    expect(tokenize('   ')).toEqual([{ kind: 'eof', pos: 4 }]);
  });
});

describe('bare values', () => {
  test('run to the next space and may contain colons (timestamps)', () => {
    expect(tokenize('created_at>=2026-01-01T10:00:00Z AND x:1')[2]).toEqual({
      kind: 'value',
      text: '2026-01-01T10:00:00Z',
      quoted: false,
      pos: 13,
    });
  });

  test('may start with a sign, a digit, an operator character or a letter', () => {
    expect(tokenize('amount_remaining:-5')[2]).toMatchObject({ text: '-5' });
    expect(tokenize('a:>=3')).toEqual([
      { kind: 'word', text: 'a', pos: 1 },
      { kind: 'op', op: ':', pos: 2 },
      { kind: 'value', text: '>=3', quoted: false, pos: 3 },
      { kind: 'eof', pos: 6 },
    ]);
    expect(tokenize('status:AND')[2]).toMatchObject({ text: 'AND', quoted: false });
  });

  test('keep punctuation, SQL and non-ASCII text verbatim', () => {
    expect(tokenize("account_number:x';DROP--")[2]).toMatchObject({ text: "x';DROP--" });
    expect(tokenize('full_name:José')[2]).toMatchObject({ text: 'José', pos: 11 });
  });
});

describe('quoted values', () => {
  test('may contain spaces; the position is that of the opening quote', () => {
    expect(tokenize('tag:"late fee"')).toEqual([
      { kind: 'word', text: 'tag', pos: 1 },
      { kind: 'op', op: ':', pos: 4 },
      { kind: 'value', text: 'late fee', quoted: true, pos: 5 },
      { kind: 'eof', pos: 15 },
    ]);
  });

  test('\\" stands for a quote and \\\\ for a backslash', () => {
    const input = String.raw`tag:"a\"b\\c"`;
    expect(tokenize(input)[2]).toEqual({ kind: 'value', text: 'a"b\\c', quoted: true, pos: 5 });
    expect(tokenize(input).at(-1)).toEqual({ kind: 'eof', pos: input.length + 1 });
  });

  test('an empty quoted value is allowed', () => {
    expect(tokenize('tag:""')[2]).toEqual({ kind: 'value', text: '', quoted: true, pos: 5 });
  });

  test('keywords, operators and quotes inside quotes are plain text', () => {
    expect(tokenize('a:"x AND b>=1 : <"')[2]).toMatchObject({ text: 'x AND b>=1 : <', quoted: true });
    expect(tokenize('a:"x AND b>=1 : <"')).toHaveLength(4);
  });

  test('the next token starts right after the closing quote', () => {
    expect(tokenize('a:"x y" AND b:1').map((t) => t.pos)).toEqual([1, 2, 3, 9, 13, 14, 15, 16]);
  });

  test('a quoted value standing alone is lexed (the parser rejects it)', () => {
    expect(tokenize('"abc"')).toEqual([
      { kind: 'value', text: 'abc', quoted: true, pos: 1 },
      { kind: 'eof', pos: 6 },
    ]);
  });
});

describe('errors name the position', () => {
  test('an unexpected character', () => {
    expectSearchError(() => tokenize('status:x AND (y:1)'), 14, "Unexpected character '('");
    expectSearchError(() => tokenize('1abc:2'), 1, "Unexpected character '1'");
    expectSearchError(() => tokenize('a!1'), 2, "Unexpected character '!'");
    expectSearchError(() => tokenize('é:1'), 1, "Unexpected character 'é'");
  });

  test('a key must be quoted and closed', () => {
    expectSearchError(() => tokenize('metadata[k]:x'), 10, "Expected a quoted key after '['");
    expectSearchError(() => tokenize("metadata['k':x"), 13, "Expected ']' after the key");
    expectSearchError(() => tokenize("metadata['k:x"), 10, 'Unterminated quoted value');
  });

  test('an operator without a value', () => {
    expectSearchError(() => tokenize('status:'), 8, "Expected a value after ':'");
    expectSearchError(() => tokenize('status>=   '), 12, "Expected a value after '>='");
  });

  test('an unterminated quoted value points at its opening quote', () => {
    expectSearchError(() => tokenize('tag:"late fee'), 5, 'Unterminated quoted value starting');
    expectSearchError(() => tokenize(String.raw`tag:"late\"`), 5, 'Unterminated');
    expectSearchError(() => tokenize('a:1 AND "x'), 9, 'Unterminated');
  });

  test('an escape other than \\" or \\\\ points at the backslash', () => {
    expectSearchError(() => tokenize(String.raw`tag:"a\nb"`), 7, 'Invalid escape in quoted value');
    expectSearchError(() => tokenize('tag:"ab\\'), 8, 'Invalid escape');
  });

  test('a quote inside a bare value', () => {
    expectSearchError(() => tokenize('tag:ab"c"'), 7, 'inside a bare value');
  });

  test('control characters, in or out of quotes', () => {
    expectSearchError(() => tokenize('tag:"a\u0000b"'), 7, 'Control character in quoted value');
    expectSearchError(() => tokenize('tag:"a\tb"'), 7, 'Control character in quoted value');
    expectSearchError(() => tokenize('status:a\u0000'), 9, 'Control character in value');
    expectSearchError(() => tokenize('status:ab\u007f'), 10, 'Control character in value');
    expectSearchError(() => tokenize('\u0000'), 1, 'Unexpected character');
  });

  test(`a query longer than ${MAX_QUERY_LENGTH} characters`, () => {
    expect(MAX_QUERY_LENGTH).toBe(1000);
    const longest = `a:${'x'.repeat(MAX_QUERY_LENGTH - 2)}`;
    expect(tokenize(longest)[2]).toMatchObject({ kind: 'value', text: 'x'.repeat(MAX_QUERY_LENGTH - 2) });
    expectSearchError(() => tokenize(`${longest}x`), MAX_QUERY_LENGTH + 1, `longer than ${MAX_QUERY_LENGTH} characters`);
  });
});
