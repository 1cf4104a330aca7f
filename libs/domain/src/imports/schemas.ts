/**
 * Import schemas (docs/api.md section 16): the upload's form fields, the public import object with
 * its live counts, a row error, and the stored rows.
 */
import { DateColumn, Nullable, StringEnum, Type, metadataSchema, objectId, rowColumns, timestampProperties, type Static } from '../kernel/schemas.js';
import { IMPORT_TYPES } from './files.js';
import { IMPORT_STATUSES, SHOWN_IMPORT_STATUSES } from './states.js';

/** The text fields of `POST /imports` (multipart/form-data), besides the `file` part. */
export const ImportFields = Type.Object(
  {
    type: StringEnum(IMPORT_TYPES, { description: 'What the file holds.' }),
    organisation_id: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "The organisation the file's debts belong to: required for placements; for other types it narrows account numbers to it.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The multipart body as the OpenAPI document describes it. */
export const ImportUpload = Type.Object({
  type: ImportFields.properties.type,
  organisation_id: ImportFields.properties.organisation_id,
  file: Type.String({
    format: 'binary',
    maxLength: 1073741824,
    description: 'The CSV file: UTF-8, comma delimited, a header row (docs/api.md section 16); at most IMPORT_MAX_BYTES (default 1 GiB: larger is 413).',
  }),
});

/** Why a file was refused whole. */
export const ImportFailure = Type.Object({
  code: Type.String({ description: 'not_utf8, not_csv, empty_file, header_mismatch, missing_column, unknown_organisation, too_many_rows' }),
  message: Type.String(),
});

/** The public import object. */
export const Import = Type.Object({
  id: objectId('imp'),
  object: Type.Literal('import'),
  type: StringEnum(IMPORT_TYPES),
  organisation: Nullable(Type.String({ description: 'Id of the organisation named at upload, or null.' })),
  status: StringEnum(SHOWN_IMPORT_STATUSES),
  failure: Nullable(ImportFailure),
  filename: Nullable(Type.String()),
  sha256: Type.String({ description: 'SHA-256 of the file, hex: the same file of the same type uploaded again answers this import.' }),
  size_bytes: Type.Integer(),
  rows_total: Type.Integer({ minimum: 0 }),
  rows_processed: Type.Integer({ minimum: 0 }),
  rows_succeeded: Type.Integer({ minimum: 0 }),
  rows_failed: Type.Integer({ minimum: 0 }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** One refused row (or cell) of an import. */
export const ImportError = Type.Object({
  id: objectId('ierr'),
  object: Type.Literal('import_error'),
  import: Type.String(),
  row: Type.Integer({ description: 'Row number in the file: the header is row 1, the first data row 2.' }),
  column: Nullable(Type.String({ description: 'The column at fault, when one is.' })),
  code: Type.String(),
  message: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

/** A row of `imports`, read with the sums of its lanes. */
export const ImportRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  type: StringEnum(IMPORT_TYPES),
  organisation_id: Nullable(Type.String()),
  sha256: Type.String(),
  filename: Nullable(Type.String()),
  size_bytes: Type.Union([Type.Number(), Type.String()]),
  status: StringEnum(IMPORT_STATUSES),
  failure_code: Nullable(Type.String()),
  failure_message: Nullable(Type.String()),
  rows_total: Type.Number(),
  rows_processed: Type.Number(),
  rows_succeeded: Type.Number(),
  rows_failed: Type.Number(),
  created_by: Nullable(Type.String()),
  metadata: metadataSchema,
  started_at: Nullable(DateColumn),
  finished_at: Nullable(DateColumn),
});

/** A row of `import_errors`. */
export const ImportErrorRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  import_id: Type.String(),
  row_number: Type.Number(),
  column: Nullable(Type.String()),
  code: Type.String(),
  message: Type.String(),
  created_at: DateColumn,
});

export type ImportFields = Static<typeof ImportFields>;
export type Import = Static<typeof Import>;
export type ImportError = Static<typeof ImportError>;
export type ImportRow = Static<typeof ImportRow>;
export type ImportErrorRow = Static<typeof ImportErrorRow>;
