/**
 * Lexer of the search language (docs/api.md sections 4 and 10): turns a query such as
 * `status:prepared AND amount>=1000 AND metadata['crm']='A 1'` into tokens with their 1-based
 * positions.
 *
 * Tokens: words (field names, dotted as `customer.email`, optionally followed by a quoted key in
 * brackets as `metadata['key']`; and the keywords `AND`, `OR`), operators (`:`, `=`, `>`, `>=`,
 * `<`, `<=`), and values. A value follows an operator (optional spaces between them) and is
 * either bare (every character up to the next space; may contain `:` as in timestamps) or quoted
 * with `"` or `'`, where a backslash escapes the quote character or a backslash.
 */
import { searchError } from './errors.js';

/** Comparison operators, two-character ones first so that `>=` is not read as `>` then `=`. */
export const OPERATORS = [':', '>=', '<=', '>', '<', '='] as const;
export type Operator = (typeof OPERATORS)[number];

/** A token with its 1-based position in the query; `eof` closes every token list. */
export type Token =
  | { kind: 'word'; text: string; pos: number; key?: string; keyPos?: number }
  | { kind: 'op'; op: Operator; pos: number }
  | { kind: 'value'; text: string; quoted: boolean; pos: number }
  | { kind: 'eof'; pos: number };

/** Longest query accepted, in characters. */
export const MAX_QUERY_LENGTH = 1000;

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
// Control characters (NUL above all, which PostgreSQL text cannot hold) are never part of a query.
const isControl = (c: string) => c < ' ' || c === '\x7f';
const isWordStart = (c: string) => /[A-Za-z_]/.test(c);
const isWordPart = (c: string) => /[A-Za-z0-9_.]/.test(c);
const isQuote = (c: string | undefined) => c === '"' || c === "'";

/** Reads a value quoted with `"` or `'` starting at `start` (the opening quote). */
function readQuoted(input: string, start: number): { text: string; end: number } {
  const quote = input[start]!;
  let text = '';
  let i = start + 1;
  while (i < input.length) {
    const c = input[i]!;
    if (c === quote) return { text, end: i + 1 };
    if (isControl(c)) throw searchError('Control character in quoted value', i + 1);
    if (c === '\\') {
      const next = input[i + 1];
      if (next !== quote && next !== '\\') throw searchError(`Invalid escape in quoted value (only \\${quote} and \\\\ are allowed)`, i + 1);
      text += next;
      i += 2;
      continue;
    }
    text += c;
    i += 1;
  }
  throw searchError('Unterminated quoted value starting', start + 1);
}

/** Reads a bare value starting at `start`: everything up to the next space. */
function readBare(input: string, start: number): { text: string; end: number } {
  let i = start;
  while (i < input.length && !isSpace(input[i])) {
    if (input[i] === '"') throw searchError("Unexpected '\"' inside a bare value (quote the whole value)", i + 1);
    if (isControl(input[i]!)) throw searchError('Control character in value', i + 1);
    i += 1;
  }
  return { text: input.slice(start, i), end: i };
}

/**
 * Splits `input` into tokens, ending with an `eof` token.
 * @throws ApiError 400 `invalid_search_query` with the position of the first bad character
 */
export function tokenize(input: string): Token[] {
  if (input.length > MAX_QUERY_LENGTH) throw searchError(`The query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH + 1);
  const tokens: Token[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (isSpace(input[i])) i += 1;
  };
  while (true) {
    skipSpaces();
    if (i >= input.length) break;
    const c = input[i]!;
    if (isWordStart(c)) {
      const start = i;
      while (i < input.length && isWordPart(input[i]!)) i += 1;
      const word: Token = { kind: 'word', text: input.slice(start, i), pos: start + 1 };
      if (input[i] === '[') {
        // A keyed field, `metadata['key']`: the key is quoted like a value.
        if (!isQuote(input[i + 1])) throw searchError("Expected a quoted key after '['", i + 2);
        const read = readQuoted(input, i + 1);
        if (input[read.end] !== ']') throw searchError("Expected ']' after the key", read.end + 1);
        Object.assign(word, { key: read.text, keyPos: i + 2 });
        i = read.end + 1;
      }
      tokens.push(word);
      continue;
    }
    const op = OPERATORS.find((o) => input.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', op, pos: i + 1 });
      i += op.length;
      // After an operator comes its value, whatever it looks like (a bare value may start with a
      // digit, a sign or a letter, so it cannot be told apart from other tokens by itself).
      skipSpaces();
      if (i >= input.length) throw searchError(`Expected a value after '${op}'`, i + 1);
      const read = isQuote(input[i]) ? readQuoted(input, i) : readBare(input, i);
      tokens.push({ kind: 'value', text: read.text, quoted: isQuote(input[i]), pos: i + 1 });
      i = read.end;
      continue;
    }
    if (isQuote(c)) {
      const read = readQuoted(input, i);
      tokens.push({ kind: 'value', text: read.text, quoted: true, pos: i + 1 });
      i = read.end;
      continue;
    }
    throw searchError(`Unexpected character '${c}'`, i + 1);
  }
  tokens.push({ kind: 'eof', pos: input.length + 1 });
  return tokens;
}
