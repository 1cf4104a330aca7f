/**
 * What a payment plan expands (docs/api.md section 10): `debt` in place of its id (its own
 * references as ids), and `payments`, the payments made to the plan (newest first, references as
 * ids). One batch query per page (operations/expansion.ts).
 */
import { referencingRows, type ExpansionRegistry } from '../../operations/expansion.js';
import { embeddedDebt } from '../debts/expansion.js';
import type { PaymentRow } from '../payments/schemas.js';
import { toPayment } from '../payments/store.js';
import type { PaymentPlan } from './schemas.js';

/** The relations of a payment plan. */
export const PAYMENT_PLAN_EXPANSIONS = {
  debt: embeddedDebt<PaymentPlan>(),
  payments: referencingRows<PaymentPlan, PaymentRow>('payments', 'payment_plan_id', toPayment),
} satisfies ExpansionRegistry<PaymentPlan>;
