/**
 * The export document's shape (docs/api.md section 20, "Export"), for the OpenAPI document: each
 * section holds the public objects of its resource, as their own endpoints show them.
 */
import { Type, timestampSchema } from '../kernel/schemas.js';
import { Customer } from '../customers/schemas.js';
import { ContactDetail } from '../contact-details/schemas.js';
import { Debt } from '../debts/schemas.js';
import { Payment } from '../payments/schemas.js';
import { PaymentPlan } from '../payment-plans/schemas.js';
import { Communication } from '../communications/schemas.js';
import { IncomeAndExpenditure } from '../income-and-expenditure/schemas.js';
import { CustomerAccess } from './access-log.js';

/** `GET /customers/{id}/export`: one JSON document, sections oldest first. */
export const CustomerExport = Type.Object(
  {
    object: Type.Literal('customer_export'),
    exported_at: timestampSchema('When the document was made.'),
    customer: Customer,
    contact_details: Type.Array(ContactDetail, { description: 'Every contact detail, deleted ones too (`status: deleted`).' }),
    debts: Type.Array(Debt, { description: "The customer's debts, with their status and summary (minor units)." }),
    payments: Type.Array(Payment, { description: 'Payments towards those debts.' }),
    payment_plans: Type.Array(PaymentPlan, { description: 'Payment plans of those debts, with their schedules.' }),
    income_and_expenditures: Type.Array(IncomeAndExpenditure, { description: "The customer's income and expenditure statements, as given." }),
    communications: Type.Array(Communication, { description: 'Every communication, outbound and inbound, with its rendered `subject` and `body`.' }),
    events: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Events about the customer, its contact details, debts, payments, plans and communications, as `GET /events/{id}` shows them.',
    }),
    access_log: Type.Array(CustomerAccess, { description: "Every read of the customer's personal data by an operator or a portal session." }),
  },
  { additionalProperties: false },
);
