/**
 * The payment plan as the API shows it (docs/api.md sections 9 and 10): the domain's object with
 * its `debt` as the id or, with `expand[]=debt`, the debt, and its payments with `expand[]=payments`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { PaymentPlan as PaymentPlanObject } from '@dms/domain/payment-plans';
import { Payment } from '@dms/domain/payments';
import { DebtRef } from '../debts/schemas.js';

const { created_at, updated_at, ...own } = PaymentPlanObject.properties;

/** The public payment plan object. */
export const PaymentPlan = Type.Object({
  ...own,
  debt: DebtRef,
  payments: Type.Optional(Type.Array(Payment, { description: "The plan's payments, newest first, with `expand[]=payments`." })),
  created_at,
  updated_at,
});

/** The payment plan as responses show it (relations ids or, expanded, objects). */
export type PaymentPlanView = Static<typeof PaymentPlan>;
