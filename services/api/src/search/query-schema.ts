/**
 * The query schema of a search operation (docs/api.md section 4): `query`, the pagination
 * parameters and any extras, with the searchable fields listed in the `query` description.
 */
import type { TProperties } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { pageProperties, querySchema } from '../operations/query.js';
import { MAX_QUERY_LENGTH } from './lexer.js';
import type { SearchRegistry } from './compiler.js';

/** "`status` (`:`; one of …), …": the fields of `registry` with their operators and values. */
export function searchFieldsDescription(registry: SearchRegistry): string {
  const list = Object.entries(registry)
    .map(([name, f]) => `\`${f.keyed ? `${name}['key']` : name}\` (${f.operators.map((o) => `\`${o}\``).join(' ')}; ${f.expects})`)
    .join(', ');
  return `Search expression (at most ${MAX_QUERY_LENGTH} characters): terms \`field:value\` (or \`=\`) or \`field>value\` (also \`>=\`, \`<\`, \`<=\`) joined by \`AND\`, \`OR\` (any case) or spaces (= AND), never AND and OR in one query; values bare, \`"double"\` or \`'single'\` quoted. Fields: ${list}.`;
}

/**
 * `{query, limit, after, before, ...extra}` with `query` required. The lexer reports malformed
 * queries itself (400 `invalid_search_query` with the position), so the schema checks presence only.
 */
export function searchQuery<P extends TProperties>(registry: SearchRegistry, extra: P = {} as P) {
  return querySchema({ query: Type.String({ description: searchFieldsDescription(registry) }), ...pageProperties, ...extra });
}
