/**
 * Parser of the search language (docs/api.md section 4) into an AST:
 *
 *   query := term ( "AND" term )*
 *   term  := field operator value
 *
 * Each node keeps the positions of its parts, so later checks (unknown field, operator not
 * allowed, value of the wrong type) can say where the problem is.
 */
import { searchError } from './errors.js';
import { tokenize, type Operator, type Token } from './lexer.js';

/** One `field op value` condition. Positions are 1-based character indexes in the query. */
export interface SearchTerm {
  field: string;
  fieldPos: number;
  op: Operator;
  opPos: number;
  value: string;
  valuePos: number;
}

/** A parsed query: its terms, all of which must hold (AND). */
export interface SearchQuery {
  terms: SearchTerm[];
}

/** Most terms a query may have (bounds the SQL a query can produce). */
export const MAX_TERMS = 20;

const AND = 'AND';

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
  while (true) {
    const field = next();
    if (field.kind !== 'word' || field.text === AND) throw searchError(`Expected a field name but found ${describe(field)}`, field.pos);
    const op = next();
    if (op.kind !== 'op') throw searchError(`Expected an operator (:, >, >=, <, <=) after '${field.text}' but found ${describe(op)}`, op.pos);
    // The lexer always emits a value right after an operator.
    const value = next() as Extract<Token, { kind: 'value' }>;
    terms.push({ field: field.text, fieldPos: field.pos, op: op.op, opPos: op.pos, value: value.text, valuePos: value.pos });
    if (terms.length > MAX_TERMS) throw searchError(`A query may have at most ${MAX_TERMS} terms`, field.pos);
    const joiner = next();
    if (joiner.kind === 'eof') return { terms };
    if (joiner.kind !== 'word' || joiner.text !== AND) {
      const hint = joiner.kind === 'word' && joiner.text.toUpperCase() === AND ? ' (write AND in capitals)' : '';
      throw searchError(`Expected AND or end of query but found ${describe(joiner)}${hint}`, joiner.pos);
    }
  }
}
