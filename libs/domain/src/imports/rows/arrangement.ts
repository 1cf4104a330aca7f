/**
 * An arrangement row (docs/api.md section 16): a plan the tenant agreed with the customer directly,
 * recorded as an external payment plan (`POST /debts/{id}/payment_plans` with `instalment_amount`
 * and `start_on` = `first_payment_date`; `metadata.external` = `true`), which stops the debt's
 * collection communications while it runs. `is_cancelled=true` cancels the debt's active plan
 * (`POST /payment_plans/{id}/cancel`): the debt is worked, and the customer contacted, again.
 */
import type { Knex } from '@dms/db';
import { validator } from '../../kernel/validation.js';
import { tenantRows } from '../../kernel/scoped.js';
import { cancelPaymentPlan, createPlan } from '../../debts/plans.js';
import { paymentPlansResource } from '../../payment-plans/resource.js';
import { PaymentPlanCreate } from '../../payment-plans/schemas.js';
import type { Frequency } from '../../payment-plans/schedule.js';
import { extraMetadata } from '../files.js';
import { parseAmount, parseBoolean, parseDate } from '../values.js';
import { lockAccount, optional, read, required, RowError, type Cells, type RowContext } from './context.js';

const planBody = validator<PaymentPlanCreate>(PaymentPlanCreate);

/** Where the domain's params point in an arrangement row. */
export const ARRANGEMENT_PARAMS: Readonly<Record<string, string>> = {
  start_on: 'first_payment_date',
  instalment_amount: 'amount',
  amount: 'amount',
  frequency: 'frequency',
};

/** The file's frequencies to the plan's. */
const FREQUENCY: Readonly<Record<string, Frequency>> = { weekly: 'weekly', biweekly: 'fortnightly', monthly: 'monthly' };

/**
 * Applies an arrangement row in `trx` (see the module comment).
 * @throws RowError for a cell, an unknown account or no plan to cancel; ApiError of the domain
 */
export async function applyArrangement(trx: Knex.Transaction, ctx: RowContext, cells: Cells): Promise<void> {
  const cancelled = read('is_cancelled', parseBoolean(optional(cells, 'is_cancelled') ?? ''));
  const amount = read('amount', parseAmount(required(cells, 'amount')));
  const frequency = FREQUENCY[required(cells, 'frequency').toLowerCase()];
  if (!frequency) throw new RowError('frequency', 'invalid_frequency', 'frequency must be one of Weekly, Biweekly, Monthly.');
  const startOn = read('first_payment_date', parseDate(required(cells, 'first_payment_date')));
  const debt = await lockAccount(trx, ctx, required(cells, 'account_number'));
  const note = { whodunnit: ctx.whodunnit, context: 'arrangement file' };
  if (cancelled) {
    const plan = await tenantRows(trx, paymentPlansResource, ctx.tenantId)
      .where({ 'payment_plans.debt_id': debt.id, 'payment_plans.status': 'active' })
      .first('payment_plans.id');
    if (!plan) throw new RowError('is_cancelled', 'no_active_plan', `The debt of account_number '${debt.account_number ?? ''}' has no active plan to cancel.`);
    await cancelPaymentPlan(trx, ctx.tenantId, plan.id as string, note);
    return;
  }
  if (amount === 0) throw new RowError('amount', 'invalid_amount', 'amount must be greater than 0.');
  const method = optional(cells, 'payment_method');
  const metadata = { ...extraMetadata(cells), external: 'true', ...(method ? { payment_method: method } : {}) };
  await createPlan(trx, ctx.tenantId, debt.id, planBody({ frequency, start_on: startOn, instalment_amount: amount, metadata }), note);
}
