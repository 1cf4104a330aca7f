/**
 * File imports (docs/api.md section 16): a tenant places a book (placements, transactions,
 * arrangements, closures) as CSV files; each upload is an import whose rows the worker applies.
 * They introduce the imports scopes.
 */
import { defineResource } from '../kernel/resource.js';

/** The `imports` table: one uploaded file, its status and where its rows stand. */
export const importsResource = defineResource({
  object: 'import',
  noun: 'import',
  table: 'imports',
  idPrefix: 'imp',
  events: ['import.completed', 'import.failed'],
  scopes: ['imports:read', 'imports:write'],
});

/** The `import_errors` table: why a row of an import was skipped. */
export const importErrorsResource = defineResource({
  object: 'import_error',
  noun: 'import error',
  table: 'import_errors',
  idPrefix: 'ierr',
  events: [],
});
