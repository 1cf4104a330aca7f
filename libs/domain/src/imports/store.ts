/**
 * Imports as stored (docs/api.md section 16): the public object with its live counts (the sums of
 * its lanes, each moved in the transaction of the row it applied, so a client polling sees the
 * progress as rows commit), its row errors, and the one writer of an import's `status`: every
 * change decided by IMPORT_MACHINE, `import.completed` and `import.failed` recorded through the outbox.
 */
import type { Knex } from '@dms/db';
import { recordEvent } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import type { FileProblem } from './files.js';
import { importErrorsResource, importsResource } from './resource.js';
import type { Import, ImportError, ImportErrorRow, ImportRow } from './schemas.js';
import { IMPORT_MACHINE, type ImportMove } from './states.js';

/** Maps a row (read with its counts) to the public object. */
export function toImport(row: ImportRow): Import {
  return {
    id: row.id,
    object: 'import',
    type: row.type,
    organisation: row.organisation_id,
    // `receiving` never commits (the upload's transaction moves it on first); shown as what it becomes.
    status: row.status === 'receiving' ? 'queued' : row.status,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    filename: row.filename,
    sha256: row.sha256,
    size_bytes: Number(row.size_bytes),
    rows_total: Number(row.rows_total),
    rows_processed: Number(row.rows_processed),
    rows_succeeded: Number(row.rows_succeeded),
    rows_failed: Number(row.rows_failed),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** Maps an error row to the public object. */
export function toImportError(row: ImportErrorRow): ImportError {
  return {
    id: row.id,
    object: 'import_error',
    import: row.import_id,
    row: Number(row.row_number),
    column: row.column,
    code: row.code,
    message: row.message,
    created_at: iso(row.created_at)!,
  };
}

/** Makes a query of imports select their columns plus the live counts summed over their lanes. */
export function withCounts(q: Knex.QueryBuilder): void {
  q.select('imports.*', 'counts.rows_processed', 'counts.rows_succeeded', 'counts.rows_failed').joinRaw(
    `CROSS JOIN LATERAL (SELECT coalesce(sum(l.rows_processed), 0)::int AS rows_processed, coalesce(sum(l.rows_succeeded), 0)::int AS rows_succeeded,
       coalesce(sum(l.rows_failed), 0)::int AS rows_failed FROM import_lanes l WHERE l.import_id = imports.id) AS counts`,
  );
}

/**
 * The tenant's import `id` with its counts.
 * @throws ApiError 404 `resource_missing`
 */
export function loadImport(db: Knex | Knex.Transaction, tenantId: string, id: string): Promise<ImportRow> {
  return findOwned<ImportRow>(db, importsResource, tenantId, id, { select: withCounts });
}

/** The tenant's import of the same file and type that is not refused, if any (idempotence by SHA-256). */
export async function sameFile(trx: Knex.Transaction, tenantId: string, type: string, sha256: string): Promise<ImportRow | undefined> {
  const q = tenantRows(trx, importsResource, tenantId).where({ 'imports.type': type, 'imports.sha256': sha256 }).whereNot('imports.status', 'failed');
  withCounts(q);
  return (await q.first()) as ImportRow | undefined;
}

/**
 * Every error of the import in file order (by row, then as recorded), read in keyset pages of
 * `pageSize` rows (the `.csv` form reads them all without holding them all).
 */
export async function* errorRows(db: Knex, tenantId: string, importId: string, pageSize = 1000): AsyncGenerator<ImportErrorRow> {
  let after: [number, number] = [0, 0];
  for (;;) {
    const page = (await tenantRows(db, importErrorsResource, tenantId)
      .where('import_errors.import_id', importId)
      .whereRaw('(import_errors.row_number, import_errors.seq) > (?, ?)', after)
      .orderBy([{ column: 'import_errors.row_number' }, { column: 'import_errors.seq' }])
      .limit(pageSize)) as ImportErrorRow[];
    yield* page;
    if (page.length < pageSize) return;
    const last = page[page.length - 1]!;
    after = [Number(last.row_number), Number(last.seq)];
  }
}

/**
 * Applies `move` to the import row the caller has locked or just inserted, with the columns it
 * brings, and records `import.completed` / `import.failed` when it ends there.
 * @throws ApiError 409 `invalid_state_transition` when the machine forbids the move
 */
export async function moveImport(
  trx: Knex.Transaction,
  tenantId: string,
  current: Pick<ImportRow, 'id' | 'status'>,
  move: ImportMove,
  columns: Record<string, unknown> = {},
): Promise<Import> {
  const to = IMPORT_MACHINE.require(current.status, move);
  await tenantRows(trx, importsResource, tenantId)
    .where('imports.id', current.id)
    .update({ ...columns, status: to, updated_at: trx.fn.now() });
  const shown = toImport(await loadImport(trx, tenantId, current.id));
  if (to === 'completed') await recordEvent(trx, importsResource, tenantId, 'import.completed', shown);
  if (to === 'failed') await recordEvent(trx, importsResource, tenantId, 'import.failed', shown);
  return shown;
}

/** What an upload knows of its import before reading the file. */
export interface NewImport {
  tenantId: string;
  type: string;
  organisationId: string | null;
  filename: string | null;
  createdBy: string;
}

/**
 * Inserts import `id` in `receiving`, the status of an upload in progress: the upload's
 * transaction moves it on (`queue` or `refuse`) before it commits, so no other transaction sees it.
 */
export async function insertReceiving(trx: Knex.Transaction, id: string, input: NewImport): Promise<{ id: string; status: 'receiving' }> {
  const current = { id, status: 'receiving' as const };
  await trx(importsResource.table).insert({
    id,
    tenant_id: input.tenantId,
    type: input.type,
    organisation_id: input.organisationId,
    filename: input.filename,
    created_by: input.createdBy,
    sha256: '',
    status: current.status,
  });
  return current;
}

/** The columns of a file refused whole. */
export function refusal(problem: FileProblem): Record<string, unknown> {
  return { failure_code: problem.code, failure_message: problem.message };
}
