/**
 * `/imports` (docs/api.md section 16): upload a CSV file of placements, transactions,
 * arrangements or closures (multipart, streamed), list and retrieve imports with their live
 * counts, and read an import's row errors as JSON (paginated) or CSV; behind `imports:read` /
 * `imports:write`. The worker applies the rows.
 */
import { stringify } from 'csv-stringify';
import { pipeline } from 'node:stream/promises';
import { csvOptions } from '../../http/csv.js';
import { Type } from '@sinclair/typebox';
import {
  Import,
  ImportError,
  ImportUpload,
  errorRows,
  importErrorsResource,
  importsResource,
  loadImport,
  toImport,
  toImportError,
  withCounts,
  type ImportErrorRow,
  type ImportRow,
} from '@dms/domain/imports';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';
import { uploadImport } from './upload.js';

const names = crud({ resource: importsResource, path: '/imports', tag: 'Imports' });
const object = { name: 'Import', schema: Import };
const underImport = nestedUnder(importsResource, 'id', 'import_errors.import_id');

/** The columns of the errors file, in order. */
const ERROR_COLUMNS = ['row', 'column', 'code', 'message'] as const;

/** The operations of `/imports`. */
export const importOperations: AnyOperation[] = [
  defineOperation({
    ...names.create,
    summary: 'Upload a file',
    description:
      'multipart/form-data: `type` (placement, transaction, arrangement, closure), `organisation_id` (required for placements), then `file` (CSV, UTF-8, a header row). Answers 201 with the new import (`queued`, or `failed` with the reason when the file is refused whole), or 200 with the existing import when the same file (SHA-256) of the same type was uploaded before. A file over the size limit is 413 `file_too_large`.',
    body: { name: 'ImportUpload', schema: ImportUpload, multipart: true },
    response: { ...object, status: 201, also: { 200: 'The existing import: the same file (SHA-256) of the same type was uploaded before.' } },
    errors: ['file_too_large', 'unsupported_media_type'],
    events: ['import.failed'],
    handler: (i) => uploadImport(i),
  }),
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<ImportRow, Import>(i, { resource: importsResource, narrow: withCounts, counter: () => ['imports'], serialize: (rows) => rows.map(toImport) }),
  }),
  defineOperation({
    ...names.retrieve,
    description: 'The import with its live counts: poll it to follow the progress.',
    response: { ...object, status: 200 },
    handler: async (i) => toImport(await loadImport(i.ctx.db, i.tenantId, i.params.id)),
  }),
  defineOperation({
    ...names.list,
    path: '/imports/{id}/errors',
    operationId: 'listImportErrors',
    summary: "List an import's row errors",
    description: 'Each refused row (or cell): row number (the header is row 1), column, code, message; oldest first is `.csv`, this list is newest first.',
    pathParams: { id: importsResource.idPrefix },
    query: pageQuery(),
    response: { name: 'ImportError', schema: ImportError, status: 200, list: true },
    handler: async (i) => {
      const parent = await underImport(i);
      return listPage<ImportErrorRow, ImportError>(i, {
        resource: importErrorsResource,
        narrow: parent.narrow,
        counter: () => ['import_errors', parent.id],
        serialize: (rows) => rows.map(toImportError),
      });
    },
  }),
  defineOperation({
    ...names.retrieve,
    path: '/imports/{id}/errors.csv',
    operationId: 'downloadImportErrors',
    summary: "Download an import's row errors as CSV",
    description: 'Every error of the import, in file order: `row,column,code,message` (RFC 4180, UTF-8), streamed.',
    pathParams: { id: importsResource.idPrefix },
    response: { name: 'ImportErrorsCsv', schema: Type.String(), status: 200, produces: 'text/csv' },
    handler: async (i) => {
      await loadImport(i.ctx.db, i.tenantId, i.params.id);
      i.res.status(200).type('text/csv; charset=utf-8');
      i.res.setHeader('Content-Disposition', `attachment; filename="${i.params.id}-errors.csv"`);
      const csv = stringify(csvOptions({ header: true, columns: [...ERROR_COLUMNS] }));
      const records = async function* () {
        for await (const r of errorRows(i.ctx.db, i.tenantId, i.params.id))
          yield { row: r.row_number, column: r.column ?? '', code: r.code, message: r.message };
      };
      await pipeline(records, csv, i.res);
    },
  }),
];
