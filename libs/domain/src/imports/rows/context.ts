/**
 * What applying one row of an import needs (docs/api.md section 16): its tenant, organisation,
 * currency and uploader, the refusal of a row (`RowError`, naming the column), reading cells
 * (required, amounts, dates, through values.ts) and finding the debt an account number names.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantRows } from '../../kernel/scoped.js';
import { debtsResource } from '../../debts/resource.js';
import type { DebtRow } from '../../debts/schemas.js';
import { isProblem, type CellProblem } from '../values.js';

/** The row being applied and what it applies for. */
export interface RowContext {
  tenantId: string;
  importId: string;
  /** The organisation named at upload, if any (placements always have one). */
  organisationId: string | null;
  /** The organisation's currency (its `configurations.imports.currency`, default GBP). */
  currency: 'GBP' | 'EUR' | 'USD';
  /** Client id of the uploader: `whodunnit` of every change. */
  whodunnit: string;
  /** Row number in the file (the header is row 1). */
  rowNumber: number;
}

/** A row refused: the column at fault (or null), a stable code and a message. */
export class RowError extends Error {
  constructor(
    readonly column: string | null,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The row's cells by column name. */
export type Cells = Readonly<Record<string, string>>;

/** The cell of `column`, or undefined when empty or absent. */
export function optional(cells: Cells, column: string): string | undefined {
  const v = cells[column];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * The cell of `column`.
 * @throws RowError `missing_value` when it is empty
 */
export function required(cells: Cells, column: string): string {
  const v = optional(cells, column);
  if (v === undefined) throw new RowError(column, 'missing_value', `${column} is required.`);
  return v;
}

/**
 * The value a parser of values.ts made of `column`'s cell.
 * @throws RowError with the parser's code when it refused the cell
 */
export function read<T>(column: string, parsed: T | CellProblem): T {
  if (isProblem(parsed)) throw new RowError(column, parsed.code, `${column}: ${parsed.message}`);
  return parsed;
}

/**
 * Locks the debt `account_number` names (within the import's organisation, when it has one).
 * @throws RowError `unknown_account` when none, `ambiguous_account` when several organisations have it
 */
export async function lockAccount(trx: Knex.Transaction, ctx: RowContext, accountNumber: string): Promise<DebtRow> {
  const q = tenantRows(trx, debtsResource, ctx.tenantId).where('debts.account_number', accountNumber).limit(2).forUpdate();
  if (ctx.organisationId) q.where('debts.organisation_id', ctx.organisationId);
  const rows = (await q) as DebtRow[];
  if (rows.length === 0) throw new RowError('account_number', 'unknown_account', `No debt has account_number '${accountNumber}'.`);
  if (rows.length > 1) {
    throw new RowError('account_number', 'ambiguous_account', `Several organisations have account_number '${accountNumber}': upload with organisation_id.`);
  }
  return rows[0]!;
}

/**
 * The column an error of the domain names, from its `param` (`metadata.branch` → `extra_branch`),
 * through the row type's table of params to columns.
 */
export function columnOf(err: ApiError, columns: Readonly<Record<string, string>>): string | null {
  const param = err.param ?? '';
  if (param.startsWith('metadata.')) return `extra_${param.slice('metadata.'.length)}`;
  for (const [prefix, column] of Object.entries(columns))
    if (param === prefix || param.startsWith(`${prefix}.`) || param.startsWith(`${prefix}[`)) return column;
  return null;
}

/** A row error to store: the column at fault (or null), its code and message. */
export type Problem = { column: string | null; code: string; message: string };

/** The problems an error thrown by a row amounts to; rethrows what is not the row's fault. */
export function problemsOf(err: unknown, params: Record<string, string>): Problem[] {
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
