/**
 * The debt as the API shows it (docs/api.md sections 5 and 10): the domain's object with its
 * `customer` and `organisation` as ids or, with `expand[]`, the objects themselves, and its
 * payments, line items, invoices, payment plans and income and expenditure statements as lists. Also `debt` of the objects that
 * belong to a debt: the id, or the debt itself with `expand[]=debt`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { deletedObjectSchema, type DeletedObject } from '@dms/domain/kernel';
import { Debt as DebtObject } from '@dms/domain/debts';
import type { Customer } from '@dms/domain/customers';
import type { IncomeAndExpenditure } from '@dms/domain/income-and-expenditure';
import { Invoice } from '@dms/domain/invoices';
import { LineItem } from '@dms/domain/line-items';
import type { OrganisationWithContactDetails as Organisation } from '@dms/domain/organisation-contact-details';
import { PaymentPlan } from '@dms/domain/payment-plans';
import { Payment } from '@dms/domain/payments';

/** `customer` of a debt: the id, the customer with `expand[]=customer`, or its stub once deleted. */
const CustomerRef = Type.Unsafe<string | Customer | DeletedObject<'customer'>>({
  description: 'Customer id, or the customer object with `expand[]=customer`.',
  oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Customer' }, deletedObjectSchema('customer')],
});

/** `organisation` of a debt: the id, or the organisation with `expand[]=organisation`. */
const OrganisationRef = Type.Unsafe<string | Organisation>({
  description: 'Organisation id, or the object with `expand[]=organisation`.',
  oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Organisation' }],
});

const { id, object, customer: _customer, organisation: _organisation, created_at, updated_at, ...own } = DebtObject.properties;

/** The public debt object. */
export const Debt = Type.Object({
  id,
  object,
  customer: CustomerRef,
  organisation: OrganisationRef,
  ...own,
  payments: Type.Optional(Type.Array(Payment, { description: "The debt's payments, newest first, with `expand[]=payments`." })),
  line_items: Type.Optional(Type.Array(LineItem, { description: "The debt's line items, newest first, with `expand[]=line_items`." })),
  invoices: Type.Optional(Type.Array(Invoice, { description: "The debt's invoices, newest first, with `expand[]=invoices`." })),
  payment_plans: Type.Optional(Type.Array(PaymentPlan, { description: "The debt's payment plans, newest first, with `expand[]=payment_plans`." })),
  income_and_expenditures: Type.Optional(
    Type.Array(Type.Unsafe<IncomeAndExpenditure>({ $ref: '#/components/schemas/IncomeAndExpenditure' }), {
      description: "The debt's income and expenditure statements, newest first, with `expand[]=income_and_expenditures`.",
    }),
  ),
  created_at,
  updated_at,
});

/** The debt as `GET /debts/{id}` shows it: the debt and its `portal_url` (retrieve only: not in lists, searches or events). */
export const DebtWithPortalUrl = Type.Object({
  ...Debt.properties,
  portal_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
    description:
      "The debt's own page in the customer's portal account, `<PORTAL_BASE_URL>/debts/<id>`, for your letters: it holds no token, so a customer without a session is asked to open the link of a message we sent and comes back to this page once verified. Null when the organisation's `configurations.portal.enabled` is false. Shown on this retrieve only.",
  }),
});

/** `debt` of an object that belongs to a debt: the id, or the debt (its references as ids) with `expand[]=debt`. */
export const DebtRef = Type.Unsafe<string | DebtObject>({
  description: 'Id of the debt, or the debt with `expand[]=debt`.',
  oneOf: [{ type: 'string' }, DebtObject],
});

/** The debt as responses show it (relations ids or, expanded, objects). */
export type DebtView = Static<typeof Debt>;
/** The debt as its retrieve shows it. */
export type DebtWithPortalUrlView = Static<typeof DebtWithPortalUrl>;
