/**
 * Applying an import's rows (docs/api.md section 16), for the worker. A worker claims a lane of a
 * `queued` or `processing` import (a lease, `FOR UPDATE SKIP LOCKED`: other workers take other
 * lanes), then applies the lane's rows in file order in transactions that lock the lane, keep the
 * rows its cursor (`next_row`) has not passed, apply them and move the cursor and the counts: a
 * placement row in one of its own by default, or `rowsPerTransaction` of them together when the
 * operator trades that for speed, set-wise either way (rows/placements.ts), each row of the
 * other types in one of its own through the domain library (a savepoint: a refused row leaves
 * nothing but its errors). So a row is applied once even if two workers race for it, and a killed
 * worker's lane resumes after its last committed transaction once its lease runs out. When no
 * lane has rows left, the import is `completed` (`import.completed`).
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { acrossTenants, findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import type { ImportType } from './files.js';
import { importErrorsResource, importsResource } from './resource.js';
import type { ImportRow } from './schemas.js';
import { moveImport } from './store.js';
import { problemsOf, type Cells, type Problem, type RowContext } from './rows/context.js';
import { applyPlacements, type FileRow, type ImportContext } from './rows/placements.js';
import { applyTransaction, TRANSACTION_PARAMS } from './rows/transaction.js';
import { applyArrangement, ARRANGEMENT_PARAMS } from './rows/arrangement.js';
import { applyClosure, CLOSURE_PARAMS } from './rows/closure.js';

/** How each file type applies a row, and where the domain's params point in it. */
const APPLIERS: Readonly<
  Record<Exclude<ImportType, 'placement'>, { apply: (trx: Knex.Transaction, ctx: RowContext, cells: Cells) => Promise<void>; params: Record<string, string> }>
> = {
  transaction: { apply: applyTransaction, params: TRANSACTION_PARAMS },
  arrangement: { apply: applyArrangement, params: ARRANGEMENT_PARAMS },
  closure: { apply: applyClosure, params: CLOSURE_PARAMS },
};

/** Settings of the worker's import work. */
export interface ApplyOptions {
  /** Only these tenants (empty: all). */
  tenantIds: readonly string[];
  /** Rows read per batch of a claimed lane. */
  batchSize: number;
  /** Placement rows per transaction (default 1: each row in a transaction of its own). */
  rowsPerTransaction?: number;
  /** Seconds a claimed lane stays the worker's without progress. */
  leaseSeconds: number;
  /** Test only: wait this long inside each row's transaction before committing (to kill a worker midway). */
  holdMs?: number;
}

/** A lane the worker holds. */
interface Claim {
  import_id: string;
  lane: number;
  next_row: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Claims a lane with rows left whose lease is free, starting its import (`processing`) if queued. */
async function claimLane(db: Knex, options: ApplyOptions): Promise<{ claim: Claim; row: ImportRow } | undefined> {
  return db.transaction(async (trx) => {
    const lane = (await acrossTenants(trx, importsResource, options.tenantIds)
      .join('import_lanes as l', 'l.import_id', 'imports.id')
      .whereIn('imports.status', ['queued', 'processing'])
      .whereRaw('l.rows_processed < l.rows_total')
      .where((q) => void q.whereNull('l.leased_until').orWhere('l.leased_until', '<', trx.fn.now()))
      .orderBy([{ column: 'imports.seq' }, { column: 'l.lane' }])
      .first('l.import_id', 'l.lane', 'l.next_row')
      .forUpdate('l')
      .skipLocked()) as Claim | undefined;
    if (!lane) return undefined;
    await trx('import_lanes')
      .where({ import_id: lane.import_id, lane: lane.lane })
      .update({ leased_until: trx.raw(`now() + make_interval(secs => ?)`, [options.leaseSeconds]) });
    const row = (await acrossTenants(trx, importsResource).where('imports.id', lane.import_id).first().forUpdate()) as ImportRow;
    if (row.status === 'queued') await moveImport(trx, row.tenant_id, row, 'start', { started_at: trx.fn.now() });
    return { claim: lane, row };
  });
}

/**
 * Locks the lane's cursor in `trx` and keeps the rows it has not passed (none when another
 * worker applied them first).
 */
async function unapplied<R extends FileRow>(trx: Knex.Transaction, importId: string, lane: number, rows: readonly R[]): Promise<R[]> {
  const cursor = await trx('import_lanes').where({ import_id: importId, lane }).first('next_row').forUpdate();
  return cursor ? rows.filter((r) => r.row_number > cursor.next_row) : [];
}

/** Stores the refused rows' errors and moves the lane's cursor past `rows` with the counts, in `trx`. */
async function recordOutcome(trx: Knex.Transaction, ctx: ImportContext, lane: number, rows: readonly FileRow[], problems: Map<number, Problem[]>) {
  // In file order, as one row at a time would have stored them.
  const errors = [...problems]
    .sort(([a], [b]) => a - b)
    .flatMap(([row, list]) =>
      list.map((p) => ({ id: newId(importErrorsResource.idPrefix), tenant_id: ctx.tenantId, import_id: ctx.importId, row_number: row, ...p })),
    );
  if (errors.length) await trx(importErrorsResource.table).insert(errors);
  await trx('import_lanes')
    .where({ import_id: ctx.importId, lane })
    .update({
      next_row: rows[rows.length - 1]!.row_number,
      rows_processed: trx.raw('rows_processed + ?', [rows.length]),
      rows_failed: trx.raw('rows_failed + ?', [problems.size]),
      rows_succeeded: trx.raw('rows_succeeded + ?', [rows.length - problems.size]),
    });
}

/**
 * Applies a claimed lane's rows in one transaction (see the module comment): placements set-wise
 * (rows/placements.ts), the other types row by row, each row in a savepoint.
 * @returns rows applied (0 when the lane's cursor had passed them: another worker applied them)
 */
async function applyRows(db: Knex, ctx: ImportContext, type: ImportType, lane: number, rows: readonly FileRow[], holdMs: number): Promise<number> {
  return db.transaction(async (trx) => {
    const todo = await unapplied(trx, ctx.importId, lane, rows);
    if (!todo.length) return 0;
    let problems = new Map<number, Problem[]>();
    if (type === 'placement') problems = await applyPlacements(trx, ctx, lane, todo);
    else {
      const applier = APPLIERS[type];
      for (const r of todo) {
        try {
          await trx.transaction((savepoint) => applier.apply(savepoint, { ...ctx, rowNumber: r.row_number }, r.cells));
        } catch (err) {
          problems.set(r.row_number, problemsOf(err, applier.params));
        }
      }
    }
    await recordOutcome(trx, ctx, lane, todo, problems);
    if (holdMs > 0) await sleep(holdMs);
    return todo.length;
  });
}

/** The currency rows of an import are in: its organisation's `configurations.imports.currency`, default GBP. */
async function currencyOf(db: Knex, row: ImportRow): Promise<RowContext['currency']> {
  if (!row.organisation_id) return 'GBP';
  const org = await findOwned<OrganisationRow>(db, organisationsResource, row.tenant_id, row.organisation_id);
  return (org.configurations as { imports?: { currency?: RowContext['currency'] } }).imports?.currency ?? 'GBP';
}

/**
 * Completes every `processing` import whose lanes have no rows left, and any `queued` one with no
 * rows at all, each once (`import.completed`).
 * @returns how many were completed
 */
export async function completeImports(db: Knex, tenantIds: readonly string[]): Promise<number> {
  return db.transaction(async (trx) => {
    const done = (await acrossTenants(trx, importsResource, tenantIds)
      .whereIn('imports.status', ['queued', 'processing'])
      .whereNotExists((q) => void q.from('import_lanes as l').whereRaw('l.import_id = imports.id AND l.rows_processed < l.rows_total'))
      .select('imports.*')
      .forUpdate()
      .skipLocked()) as ImportRow[];
    for (const row of done) {
      const started =
        row.status === 'queued' ? { ...row, status: (await moveImport(trx, row.tenant_id, row, 'start', { started_at: trx.fn.now() })).status } : row;
      await moveImport(trx, row.tenant_id, started, 'complete', { finished_at: trx.fn.now() });
    }
    return done.length;
  });
}

/**
 * Claims one lane and applies up to `batchSize` of its rows.
 * @returns rows applied (0 when no lane was free)
 */
export async function applyImportBatch(db: Knex, options: ApplyOptions): Promise<number> {
  const claimed = await claimLane(db, options);
  if (!claimed) return 0;
  const { claim, row } = claimed;
  const rows: FileRow[] = await db('import_rows')
    .where({ import_id: claim.import_id, lane: claim.lane })
    .where('row_number', '>', claim.next_row)
    .orderBy('row_number')
    .limit(options.batchSize)
    .select('row_number', 'cells');
  const base = {
    tenantId: row.tenant_id,
    importId: row.id,
    organisationId: row.organisation_id,
    currency: await currencyOf(db, row),
    whodunnit: row.created_by ?? 'system',
  };
  // Placements: `rowsPerTransaction` rows per transaction, set-wise; the other types: one transaction per row.
  const size = row.type === 'placement' ? Math.max(1, options.rowsPerTransaction ?? 1) : 1;
  let applied = 0;
  for (let i = 0; i < rows.length; i += size) applied += await applyRows(db, base, row.type, claim.lane, rows.slice(i, i + size), options.holdMs ?? 0);
  // Free the lane for the next claim at once (this worker or another).
  await db('import_lanes').where({ import_id: claim.import_id, lane: claim.lane }).update({ leased_until: null });
  return applied;
}
