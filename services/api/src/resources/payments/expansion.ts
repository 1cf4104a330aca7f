/**
 * What a payment expands (docs/api.md section 10): `debt` in place of its id (the debt's own
 * references stay ids), and `payment_plan` in place of its id (null stays null, and costs no
 * query). One batch query per page (operations/expansion.ts).
 */
import { declareExpansions, referencedRow, type ExpansionRegistry } from '../../operations/expansion.js';
import { paymentPlansResource, toPaymentPlan, type PaymentPlanRow } from '@dms/domain/payment-plans';
import { embeddedDebt } from '../debts/expansion.js';
import type { PaymentView as Payment } from './schemas.js';

/** The relations of a payment. */
export const PAYMENT_EXPANSIONS = declareExpansions('payment', {
  debt: embeddedDebt<Payment>(),
  payment_plan: referencedRow<Payment, PaymentPlanRow>(
    paymentPlansResource,
    (p) => p.payment_plan as string | null,
    (r) => toPaymentPlan(r),
    { expands: 'payment_plan' },
  ),
} satisfies ExpansionRegistry<Payment>);
