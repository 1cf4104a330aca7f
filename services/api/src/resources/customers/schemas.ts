/**
 * The customer as the API shows it (docs/api.md sections 5 and 10): the domain's object, plus its
 * debts with `expand[]=debts`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Customer as CustomerObject } from '@dms/domain/customers';
import { Debt } from '@dms/domain/debts';

const { created_at, updated_at, ...own } = CustomerObject.properties;

/** The public customer object. */
export const Customer = Type.Object({
  ...own,
  debts: Type.Optional(Type.Array(Debt, { description: "The customer's debts, newest first, with `expand[]=debts`." })),
  created_at,
  updated_at,
});

/** The customer as responses show it (relations ids or, expanded, objects). */
export type CustomerView = Static<typeof Customer>;
