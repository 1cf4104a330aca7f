/**
 * Compiles a parsed search query (parser.ts) against a resource's field registry into Knex
 * conditions: every term becomes one parameterised condition, all ANDed onto the given query.
 */
import type { Knex } from '@dms/db';
import { searchError } from './errors.js';
import { SearchValueError, type SearchField } from './field-kinds.js';
import { parseSearch, type SearchQuery } from './parser.js';

/** The searchable fields of one resource, by the name used in queries. */
export type SearchRegistry = Readonly<Record<string, SearchField>>;

/**
 * Adds the conditions of `query` to `q`.
 * @throws ApiError 400 `invalid_search_query` (param `query`) for an unknown field, an operator the
 *   field does not allow, or a value of the wrong type, with the position of the offending part
 */
export function applySearch(q: Knex.QueryBuilder, query: SearchQuery, registry: SearchRegistry): Knex.QueryBuilder {
  for (const term of query.terms) {
    const field = Object.hasOwn(registry, term.field) ? registry[term.field]! : undefined;
    if (!field) throw searchError(`Unknown field '${term.field}' (allowed: ${Object.keys(registry).join(', ')})`, term.fieldPos);
    if (!field.operators.includes(term.op)) {
      throw searchError(`Operator '${term.op}' is not allowed for '${term.field}' (allowed: ${field.operators.join(' ')})`, term.opPos);
    }
    try {
      field.apply(q, term.op, term.value);
    } catch (err) {
      if (err instanceof SearchValueError) throw searchError(`${err.message} for '${term.field}'`, term.valuePos);
      throw err;
    }
  }
  return q;
}

/**
 * Parses `input` and adds its conditions to `q` (the usual entry point).
 * @throws ApiError 400 `invalid_search_query` with the position of the error
 */
export function compileSearch(q: Knex.QueryBuilder, input: string, registry: SearchRegistry): Knex.QueryBuilder {
  return applySearch(q, parseSearch(input), registry);
}
