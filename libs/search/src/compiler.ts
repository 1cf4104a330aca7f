/**
 * Compiles a parsed search query (parser.ts) against a resource's field registry into Knex
 * conditions (docs/api.md sections 4 and 10): every term becomes one parameterised condition;
 * AND queries add them onto the given query, OR queries add one group of alternatives. `=` means
 * the same as `:`. Every term is checked (field, key, operator, value) before any condition is
 * built, so a bad query fails at once with the position of the offending part.
 */
import type { Knex } from '@dms/db';
import { searchError } from './errors.js';
import { SearchValueError, type SearchField } from './field-kinds.js';
import type { Operator } from './lexer.js';
import { parseSearch, type SearchQuery, type SearchTerm } from './parser.js';

/** The searchable fields of one resource, by the name used in queries. */
export type SearchRegistry = Readonly<Record<string, SearchField>>;

/** A checked term: adds its condition to a query builder. */
type Condition = (q: Knex.QueryBuilder) => void;

/** Checks one term against the registry and returns the condition it adds. */
function conditionOf(term: SearchTerm, registry: SearchRegistry, scratch: Knex.QueryBuilder): Condition {
  const field = Object.hasOwn(registry, term.field) ? registry[term.field]! : undefined;
  if (!field) throw searchError(`Unknown field '${term.field}' (allowed: ${Object.keys(registry).join(', ')})`, term.fieldPos);
  if (field.keyed && term.key === undefined) throw searchError(`Field '${term.field}' needs a key: ${term.field}['key']`, term.fieldPos);
  if (!field.keyed && term.key !== undefined) throw searchError(`Field '${term.field}' takes no key`, term.keyPos!);
  const op: Operator = term.op === '=' ? ':' : term.op;
  if (!field.operators.includes(op)) {
    throw searchError(`Operator '${term.op}' is not allowed for '${term.field}' (allowed: ${field.operators.join(' ')})`, term.opPos);
  }
  const apply: Condition = (q) => field.apply(q, op, term.value, term.key);
  try {
    // Values are read when applied; applying once to a scratch builder reports a bad one now.
    apply(scratch);
  } catch (err) {
    if (err instanceof SearchValueError) throw searchError(`${err.message} for '${term.field}'`, term.valuePos);
    throw err;
  }
  return apply;
}

/**
 * Adds the conditions of `query` to `q`.
 * @throws ApiError 400 `invalid_search_query` (param `query`) for an unknown field, a missing or
 *   unexpected key, an operator the field does not allow, or a value of the wrong type, with the
 *   position of the offending part
 */
export function applySearch(q: Knex.QueryBuilder, query: SearchQuery, registry: SearchRegistry): Knex.QueryBuilder {
  const conditions = query.terms.map((t) => conditionOf(t, registry, q.clone()));
  if (query.connective === 'OR' && conditions.length > 1) {
    return q.where((any) => {
      for (const c of conditions) any.orWhere((alt) => c(alt));
    });
  }
  for (const c of conditions) c(q);
  return q;
}

/**
 * Parses `input` and adds its conditions to `q` (the usual entry point).
 * @throws ApiError 400 `invalid_search_query` with the position of the error
 */
export function compileSearch(q: Knex.QueryBuilder, input: string, registry: SearchRegistry): Knex.QueryBuilder {
  return applySearch(q, parseSearch(input), registry);
}
