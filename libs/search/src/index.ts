/**
 * The search language of every search endpoint (docs/api.md sections 4 and 10): `tokenize` and
 * `parseSearch` read a query, the field kinds say what each field allows and which parameterised
 * condition it becomes, `compileSearch` adds the conditions to a Knex query, and `countMatches`
 * counts the matches up to a cap. Resources declare their fields as a `SearchRegistry`.
 */
export { tokenize, OPERATORS, MAX_QUERY_LENGTH, type Operator, type Token } from './lexer.js';
export { parseSearch, MAX_TERMS, type SearchQuery, type SearchTerm, type Connective } from './parser.js';
export { applySearch, compileSearch, type SearchRegistry } from './compiler.js';
export {
  SearchValueError,
  arrayContains,
  containsText,
  emailOf,
  exactText,
  integer,
  metadataEntry,
  relatedText,
  timestamp,
  type FieldOperator,
  type SearchField,
} from './field-kinds.js';
export { searchError } from './errors.js';
export { countMatches, DEFAULT_SEARCH_TOTAL_CAP, TOTAL_RELATION_HEADER, type SearchTotal, type TotalRelation } from './total.js';
