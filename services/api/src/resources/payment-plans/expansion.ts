/**
 * What a payment plan expands (docs/api.md section 10): `debt` in place of its id (its own
 * references as ids), and `payments`, the payments made to the plan (newest first, references as
 * ids). One batch query per page (operations/expansion.ts).
 */
import { declareExpansions, referencingRows, type ExpansionRegistry } from '../../operations/expansion.js';
import { paymentsResource, toPayment, type PaymentRow } from '@dms/domain/payments';
import { embeddedDebt } from '../debts/expansion.js';
import type { PaymentPlanView as PaymentPlan } from './schemas.js';

/** The relations of a payment plan. */
export const PAYMENT_PLAN_EXPANSIONS = declareExpansions('payment_plan', {
  debt: embeddedDebt<PaymentPlan>(),
  payments: referencingRows<PaymentPlan, PaymentRow>(paymentsResource, 'payment_plan_id', toPayment, {
    expands: 'payment',
  }),
} satisfies ExpansionRegistry<PaymentPlan>);
