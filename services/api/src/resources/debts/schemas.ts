/**
 * Debt schemas (docs/api.md section 5): the create and update bodies, the public object and the
 * stored row, with their types derived from them. Amounts are integers in minor units.
 */
import {
  CURRENCIES,
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  currencySchema,
  deletedObjectSchema,
  idSchema,
  metadataPatchSchema,
  metadataSchema,
  minorUnits,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  timestampSchema,
  updateBody,
  type DeletedObject,
  type Static,
} from '../../schemas/common.js';
import type { Customer } from '../customers/schemas.js';
import { InvoiceEmbedded } from '../invoices/schemas.js';
import { LineItem, LineItemCreate } from '../line-items/schemas.js';
import { PaymentPlanEmbedded } from '../payment-plans/schemas.js';
import { PaymentEmbedded } from '../payments/fields.js';
import { DEBT_STATUSES, Summary, debtProperties } from './fields.js';
import type { Organisation } from '../organisations/schemas.js';

export { DEBT_STATUSES, DEBT_KINDS, DebtEmbedded, Summary, SummaryBreakdown, type DebtStatus, type DebtKind } from './fields.js';

/** `breakdown` of a request: shorthand for `debt`, `interest` and `fee` line items (docs/api.md section 8), minor units. */
const Breakdown = Type.Object(
  {
    principal: minorUnits({ minimum: 1, description: 'Principal owed, minor units (> 0).' }),
    interest: Type.Optional(minorUnits({ description: 'Interest owed, minor units.' })),
    fees: Type.Optional(minorUnits({ description: 'Fees owed, minor units.' })),
  },
  { additionalProperties: false },
);

const editable = {
  account_number: textSchema(64, "The creditor's account reference."),
  kind: textSchema(64, 'Free text, e.g. `purchased` or `consumer_loan`.'),
  start_at: timestampSchema(),
  tags: Type.Array(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}$' }), { maxItems: 20, uniqueItems: true }),
  metadata: metadataSchema,
};

/** `POST /debts` body. */
export const DebtCreate = Type.Object(
  {
    customer_id: idSchema('cus', 'Customer who owes the debt (yours).'),
    organisation_id: idSchema('org', 'Organisation the debt is owed to (yours).'),
    currency: currencySchema,
    breakdown: Type.Optional(Breakdown),
    line_items: Type.Optional(Type.Array(LineItemCreate, { minItems: 1, maxItems: 100, description: "The debt's first line items (not with `breakdown`)." })),
    account_number: Type.Optional(editable.account_number),
    kind: Type.Optional(editable.kind),
    start_at: Type.Optional(editable.start_at),
    tags: Type.Optional(editable.tags),
    metadata: Type.Optional(editable.metadata),
  },
  { additionalProperties: false },
);

/** `PATCH /debts/{id}` body (only while `initializing`). */
export const DebtUpdate = updateBody({
  customer_id: idSchema('cus'),
  organisation_id: idSchema('org'),
  currency: currencySchema,
  breakdown: Breakdown,
  ...editable,
  metadata: metadataPatchSchema,
});

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

/** The public debt object. */
export const Debt = Type.Object({
  id: objectId('deb'),
  object: Type.Literal('debt'),
  customer: CustomerRef,
  organisation: OrganisationRef,
  ...debtProperties,
  payments: Type.Optional(Type.Array(PaymentEmbedded, { description: "The debt's payments, newest first, with `expand[]=payments`." })),
  line_items: Type.Optional(Type.Array(LineItem, { description: "The debt's line items, newest first, with `expand[]=line_items`." })),
  invoices: Type.Optional(Type.Array(InvoiceEmbedded, { description: "The debt's invoices, newest first, with `expand[]=invoices`." })),
  payment_plans: Type.Optional(Type.Array(PaymentPlanEmbedded, { description: "The debt's payment plans, newest first, with `expand[]=payment_plans`." })),
  ...timestampProperties,
});

/** A row of `debts`; amounts in minor units (`amount_total`, `amount_remaining` are generated columns). */
export const DebtRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  customer_id: Type.String(),
  organisation_id: Type.String(),
  account_number: Nullable(Type.String()),
  kind: Nullable(Type.String()),
  currency: StringEnum(CURRENCIES),
  start_at: Type.Union([DateColumn, Type.Null()]),
  tags: Type.Array(Type.String()),
  metadata: metadataSchema,
  status: StringEnum(DEBT_STATUSES),
  status_reason: Nullable(Type.String()),
  status_updated_at: DateColumn,
  status_whodunnit: Nullable(Type.String()),
  status_context: Nullable(Type.String()),
  pause_end_at: Type.Union([DateColumn, Type.Null()]),
  amount_principal: Type.Integer(),
  amount_interest: Type.Integer(),
  amount_fees: Type.Integer(),
  amount_vat: Type.Integer(),
  amount_discounts: Type.Integer(),
  amount_refunds: Type.Integer(),
  amount_paid: Type.Integer(),
  amount_total: Type.Integer(),
  amount_remaining: Type.Integer(),
});

export type DebtCreate = Static<typeof DebtCreate>;
export type DebtUpdate = Static<typeof DebtUpdate>;
export type Debt = Static<typeof Debt>;
export type DebtRow = Static<typeof DebtRow>;
export type Summary = Static<typeof Summary>;
