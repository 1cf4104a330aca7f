/**
 * The payment as the API shows it (docs/api.md sections 8 and 10): the domain's object with its
 * `debt` and `payment_plan` as ids (the plan's may be null) or, with `expand[]`, the objects.
 */
import { Type, type Static } from '@sinclair/typebox';
import { PaymentPlan } from '@dms/domain/payment-plans';
import { Payment as PaymentObject } from '@dms/domain/payments';
import { DebtRef } from '../debts/schemas.js';

/** `payment_plan` of a payment: null, the plan's id, or the plan with `expand[]=payment_plan`. */
const PaymentPlanRef = Type.Unsafe<string | PaymentPlan | null>({
  description: 'Id of the payment plan the payment went to (or null), or the plan with `expand[]=payment_plan`.',
  oneOf: [{ type: 'null' }, { type: 'string' }, PaymentPlan],
});

/** The public payment object. */
export const Payment = Type.Object({ ...PaymentObject.properties, debt: DebtRef, payment_plan: PaymentPlanRef });

/** The payment as responses show it (relations ids or, expanded, objects). */
export type PaymentView = Static<typeof Payment>;
