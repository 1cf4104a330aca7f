/**
 * What a payment expands (docs/api.md section 10): `debt` in place of its id (the debt's own
 * references stay ids), and `payment_plan` in place of its id (null stays null, and costs no
 * query). One batch query per page (operations/expansion.ts).
 */
import { referencedRow, type ExpansionRegistry } from '../../operations/expansion.js';
import { embeddedDebt } from '../debts/expansion.js';
import { toPaymentPlan } from '../payment-plans/active.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';
import type { Payment } from './schemas.js';

/** The relations of a payment. */
export const PAYMENT_EXPANSIONS = {
  debt: embeddedDebt<Payment>(),
  payment_plan: referencedRow<Payment, PaymentPlanRow>(
    'payment_plans',
    (p) => p.payment_plan as string | null,
    (r) => toPaymentPlan(r),
  ),
} satisfies ExpansionRegistry<Payment>;
