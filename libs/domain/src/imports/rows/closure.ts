/**
 * A closure row (docs/api.md section 16): the tenant closes, holds or takes back an account, by the
 * public API's closure codes. RTC, DEC, BK, IVA, DRO, TD, PE, BS, DMP, LOI, ABU → `returned` (BK,
 * IVA, DRO and TD record the insolvency in the status `context`); PIF → `paid` when the balance is
 * cleared, else a row error; SET → `settled`; DISP → `disputed`; HOLD with a date in `note` →
 * `paused` until the start of that day (UTC). Each through the debt machine, so a move it forbids
 * is a row error naming `reason`. An empty `reason` is RTC.
 */
import type { Knex } from '@dms/db';
import { moveLockedDebt } from '../../debts/moves.js';
import type { DebtMove } from '../../debts/states.js';
import { parseDate } from '../values.js';
import { lockAccount, optional, read, required, RowError, type Cells, type RowContext } from './context.js';

/** Where the domain's params point in a closure row. */
export const CLOSURE_PARAMS: Readonly<Record<string, string>> = { end_at: 'note' };

/** A closure code: the move it makes, what it means, and whether it records an insolvency. */
interface Code {
  move: DebtMove;
  description: string;
  insolvency?: true;
}

/** The closure codes of the public API's "Closure files" page. */
export const CLOSURE_CODES: Readonly<Record<string, Code>> = {
  RTC: { move: 'return', description: 'Return at client request' },
  DEC: { move: 'return', description: 'Deceased' },
  BK: { move: 'return', description: 'Bankruptcy order or sequestration (Scotland)', insolvency: true },
  IVA: { move: 'return', description: 'Individual voluntary arrangement', insolvency: true },
  DRO: { move: 'return', description: 'Debt relief order', insolvency: true },
  TD: { move: 'return', description: 'Trust deed', insolvency: true },
  PE: { move: 'return', description: 'Process exhausted' },
  BS: { move: 'return', description: 'Breathing space' },
  DMP: { move: 'return', description: 'Debt management plan' },
  LOI: { move: 'return', description: 'Lack of information' },
  ABU: { move: 'return', description: 'Abusive' },
  PIF: { move: 'pay', description: 'Payment in full' },
  SET: { move: 'settle', description: 'Settlement' },
  DISP: { move: 'dispute', description: 'Dispute' },
  HOLD: { move: 'pause', description: 'Cease contact until date' },
};

/**
 * Applies a closure row in `trx` (see the module comment).
 * @throws RowError `unknown_closure_code`, `balance_not_cleared`, `invalid_date` / `hold_in_past`
 *   (HOLD's `note`), `unknown_account`; ApiError 409 of the debt machine
 */
export async function applyClosure(trx: Knex.Transaction, ctx: RowContext, cells: Cells): Promise<void> {
  const reason = (optional(cells, 'reason') ?? 'RTC').toUpperCase();
  const code = CLOSURE_CODES[reason];
  if (!code) throw new RowError('reason', 'unknown_closure_code', `reason '${cells.reason}' is not a closure code (${Object.keys(CLOSURE_CODES).join(', ')}).`);
  const note = optional(cells, 'note');
  let endAt: string | null = null;
  if (reason === 'HOLD') {
    endAt = `${read('note', parseDate(required(cells, 'note')))}T00:00:00Z`;
    const { rows } = await trx.raw('SELECT ?::timestamptz > tenant_now(?) AS future', [endAt, ctx.tenantId]);
    if (!rows[0].future) throw new RowError('note', 'hold_in_past', `A HOLD's note must be a future date; ${note} is not.`);
  }
  const debt = await lockAccount(trx, ctx, required(cells, 'account_number'));
  if (code.move === 'pay' && Number(debt.amount_total) - Number(debt.amount_paid) > 0) {
    throw new RowError(
      'reason',
      'balance_not_cleared',
      `PIF needs a cleared balance; ${Number(debt.amount_total) - Number(debt.amount_paid)} (minor units) remains.`,
    );
  }
  const context = [code.insolvency ? `insolvency: ${reason} (${code.description})` : `closure: ${reason}`, reason === 'HOLD' ? null : note]
    .filter(Boolean)
    .join('; ');
  await moveLockedDebt(trx, ctx.tenantId, debt, code.move, { reason: code.description, whodunnit: ctx.whodunnit, context, endAt });
}
