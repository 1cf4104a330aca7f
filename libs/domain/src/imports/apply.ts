/**
 * Applying an import's rows (docs/api.md section 16), for the worker. A worker claims a lane of a
 * `queued` or `processing` import (a lease, `FOR UPDATE SKIP LOCKED`: other workers take other
 * lanes), then applies the lane's rows in file order, each in a transaction of its own that locks
 * the lane, checks the lane's cursor (`next_row`) has not passed the row, applies it through the
 * domain library (a savepoint: a refused row leaves nothing but its errors) and moves the cursor
 * and the counts. So a row is applied once even if two workers race for it, and a killed worker's
 * lane resumes after its last committed row once its lease runs out. When no lane has rows left,
 * the import is `completed` (`import.completed`).
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { acrossTenants, findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import type { ImportType } from './files.js';
import { importErrorsResource, importsResource } from './resource.js';
import type { ImportRow } from './schemas.js';
import { moveImport } from './store.js';
import { columnOf, RowError, type Cells, type RowContext } from './rows/context.js';
import { applyPlacement, PLACEMENT_PARAMS } from './rows/placement.js';
import { applyTransaction, TRANSACTION_PARAMS } from './rows/transaction.js';
import { applyArrangement, ARRANGEMENT_PARAMS } from './rows/arrangement.js';
import { applyClosure, CLOSURE_PARAMS } from './rows/closure.js';

/** How each file type applies a row, and where the domain's params point in it. */
const APPLIERS: Readonly<
  Record<ImportType, { apply: (trx: Knex.Transaction, ctx: RowContext, cells: Cells) => Promise<void>; params: Record<string, string> }>
> = {
  placement: { apply: applyPlacement, params: PLACEMENT_PARAMS },
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

/** An error row to store. */
type Problem = { column: string | null; code: string; message: string };

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

/** The problems an error thrown by a row amounts to; rethrows what is not the row's fault. */
function problemsOf(err: unknown, params: Record<string, string>): Problem[] {
  if (err instanceof RowError) return [{ column: err.column, code: err.code, message: err.message }];
  if (err instanceof ApiError && err.status < 500) {
    if (err.errors?.length)
      return err.errors.map((e) => ({
        column: columnOf(new ApiError(err.code, e.message, { param: e.param }), params),
        code: err.code,
        message: `${e.param}: ${e.message}`,
      }));
    return [{ column: columnOf(err, params), code: err.code, message: err.message }];
  }
  throw err;
}

/**
 * Applies row `rowNumber` of a claimed lane in its own transaction (see the module comment).
 * @returns false when the lane's cursor had passed it (another worker applied it)
 */
async function applyRow(db: Knex, ctx: RowContext, type: ImportType, lane: number, cells: Cells, holdMs: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const cursor = await trx('import_lanes').where({ import_id: ctx.importId, lane }).first('next_row').forUpdate();
    if (!cursor || cursor.next_row >= ctx.rowNumber) return false;
    const applier = APPLIERS[type];
    let problems: Problem[] = [];
    try {
      await trx.transaction((savepoint) => applier.apply(savepoint, ctx, cells));
    } catch (err) {
      problems = problemsOf(err, applier.params);
    }
    if (problems.length) {
      await trx(importErrorsResource.table).insert(
        problems.map((p) => ({ id: newId(importErrorsResource.idPrefix), tenant_id: ctx.tenantId, import_id: ctx.importId, row_number: ctx.rowNumber, ...p })),
      );
    }
    await trx('import_lanes')
      .where({ import_id: ctx.importId, lane })
      .update({
        next_row: ctx.rowNumber,
        rows_processed: trx.raw('rows_processed + 1'),
        [problems.length ? 'rows_failed' : 'rows_succeeded']: trx.raw(`${problems.length ? 'rows_failed' : 'rows_succeeded'} + 1`),
      });
    if (holdMs > 0) await sleep(holdMs);
    return true;
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
  const rows: Array<{ row_number: number; cells: Cells }> = await db('import_rows')
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
  let applied = 0;
  for (const r of rows) {
    if (await applyRow(db, { ...base, rowNumber: r.row_number }, row.type, claim.lane, r.cells, options.holdMs ?? 0)) applied += 1;
  }
  // Free the lane for the next claim at once (this worker or another).
  await db('import_lanes').where({ import_id: claim.import_id, lane: claim.lane }).update({ leased_until: null });
  return applied;
}
