/**
 * The customer cancels the continuous payment authority of their plan (docs/api.md section 18
 * "Plans with a saved card"): the plan keeps its schedule, but the worker charges its saved method
 * no more (`authority_canceled_at`); the plan's `payment_plan.updated` event shows
 * `payment_method.authority_canceled_at`. Only the session customer's own debt's plan.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { lockDebt } from '../debts/moves.js';
import { lockActivePlan, writePlan } from '../payment-plans/store.js';
import type { PaymentPlan, PaymentPlanRow } from '../payment-plans/schemas.js';

/** The active plan of the customer's debt with a saved method whose authority stands, or undefined. */
export async function chargedPlanOf(db: Knex, tenantId: string, customerId: string, debtId: string): Promise<PaymentPlanRow | undefined> {
  return db('payment_plans as p')
    .join('debts as d', (j) => j.on('d.id', 'p.debt_id').andOn('d.tenant_id', 'p.tenant_id'))
    .where({ 'p.tenant_id': tenantId, 'p.debt_id': debtId, 'd.customer_id': customerId, 'p.status': 'active' })
    .whereNotNull('p.payment_method_reference')
    .whereNull('p.authority_canceled_at')
    .first<PaymentPlanRow | undefined>('p.*');
}

/**
 * Cancels the authority of the active plan of the customer's debt `debtId`.
 * @throws ApiError 404 `resource_missing` (not their debt), 409 `invalid_state_transition` (no
 *   active plan with a saved method whose authority stands)
 */
export async function cancelAuthority(db: Knex, tenantId: string, customerId: string, debtId: string): Promise<PaymentPlan> {
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, tenantId, debtId);
    if (debt.customer_id !== customerId) throw new ApiError('resource_missing', `No such debt: '${debtId}'`);
    const plan = await lockActivePlan(trx, tenantId, debt.id);
    if (!plan?.payment_method_reference || plan.authority_canceled_at)
      throw new ApiError('invalid_state_transition', 'The debt has no plan whose saved payment method is charged.');
    const { rows } = await trx.raw('SELECT tenant_now(?) AS now', [tenantId]);
    return writePlan(trx, tenantId, plan, 'change', { authority_canceled_at: rows[0].now as Date }, 'payment_plan.updated', `customer:${customerId}`);
  });
}
