/**
 * Parser of the search language (docs/api.md sections 4 and 10) into an AST:
 *
 *   query      := term ( connective? term )*
 *   connective := "AND" | "OR"            (any case; a plain space between terms means AND)
 *   term       := field ( "[" quoted-key "]" )? operator value
 *
 * One query joins all its terms the same way: mixing AND (written or implied) with OR is an error
 * at the first connective that differs from the first one, as there are no parentheses to say
 * which binds first. Each node keeps the positions of its parts, so later checks (unknown field,
 * operator not allowed, value of the wrong type) can say where the problem is.
 */
import { searchError } from './errors.js';
import { tokenize, type Operator, type Token } from './lexer.js';

/** One `field op value` condition. Positions are 1-based character indexes in the query. */
export interface SearchTerm {
  field: string;
  fieldPos: number;
  /** The key of a keyed field (`metadata['key']`), with its position. */
  key?: string;
  keyPos?: number;
  op: Operator;
  opPos: number;
  value: string;
  valuePos: number;
}

/** How the terms of a query are joined. */
export type Connective = 'AND' | 'OR';

/** A parsed query: its terms, all of which must hold (AND) or any of which (OR). */
export interface SearchQuery {
  connective: Connective;
  terms: SearchTerm[];
}

/** Most terms a query may have (bounds the SQL a query can produce). */
export const MAX_TERMS = 20;

/** The connective a word stands for, if it is one. */
function connectiveOf(t: Token): Connective | undefined {
  if (t.kind !== 'word' || t.key !== undefined) return undefined;
  const upper = t.text.toUpperCase();
  return upper === 'AND' || upper === 'OR' ? upper : undefined;
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'end of query';
    case 'word':
      return `'${t.text}'`;
    case 'op':
      return `'${t.op}'`;
    case 'value':
      return t.quoted ? 'a quoted value' : `'${t.text}'`;
  }
}

/**
 * Parses a search query.
 * @throws ApiError 400 `invalid_search_query` (param `query`) naming the position of the error
 */
export function parseSearch(input: string): SearchQuery {
  const tokens = tokenize(input);
  let at = 0;
  const next = () => tokens[at++]!;
  const terms: SearchTerm[] = [];
  let connective: Connective | undefined;
  while (true) {
    const field = next();
    if (field.kind !== 'word' || connectiveOf(field)) throw searchError(`Expected a field name but found ${describe(field)}`, field.pos);
    const op = next();
    if (op.kind !== 'op') throw searchError(`Expected an operator (:, =, >, >=, <, <=) after '${field.text}' but found ${describe(op)}`, op.pos);
    // The lexer always emits a value right after an operator.
    const value = next() as Extract<Token, { kind: 'value' }>;
    const keyed = field.key === undefined ? {} : { key: field.key, keyPos: field.keyPos! };
    terms.push({ field: field.text, fieldPos: field.pos, ...keyed, op: op.op, opPos: op.pos, value: value.text, valuePos: value.pos });
    if (terms.length > MAX_TERMS) throw searchError(`A query may have at most ${MAX_TERMS} terms`, field.pos);
    const joiner = tokens[at]!;
    if (joiner.kind === 'eof') return { connective: connective ?? 'AND', terms };
    if (joiner.kind !== 'word') throw searchError(`Expected AND, OR, another term or end of query but found ${describe(joiner)}`, joiner.pos);
    // A written connective is consumed; a term right after a space is an implied AND.
    const written = connectiveOf(joiner);
    if (written) at += 1;
    const joined = written ?? 'AND';
    connective ??= joined;
    if (joined !== connective) {
      throw searchError(
        `AND and OR cannot be mixed in one query (there are no parentheses); found ${written ?? 'a space (AND)'} after ${connective}`,
        joiner.pos,
      );
    }
  }
}
