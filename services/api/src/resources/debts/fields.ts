/**
 * The parts of the debt object (docs/api.md sections 5 and 10) that do not depend on other
 * resources: statuses, kinds, the object's own properties, and the debt as embedded in other
 * objects (`expand[]=debt` of a payment, an invoice or a payment plan, `expand[]=debts` of a
 * customer), whose references stay ids. Kept apart so those objects can embed debts without an
 * import cycle.
 */
import { CURRENCIES, Nullable, StringEnum, Type, metadataSchema, objectId, timestampProperties, type Static } from '../../schemas/common.js';

/** Every status of the lifecycle (docs/api.md sections 6 and 9). */
export const DEBT_STATUSES = [
  'initializing',
  'prepared',
  'paused',
  'resumed',
  'paying',
  'defaulted',
  'disputed',
  'settled',
  'paid',
  'withdrawn',
  'deleted',
] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** Usual kinds of debt (the seed's; `kind` itself is free text, docs/api.md section 8). */
export const DEBT_KINDS = ['consumer_loan', 'credit_card', 'overdraft', 'utility_bill', 'telecom_bill', 'rent', 'other'] as const;
export type DebtKind = (typeof DEBT_KINDS)[number];

/** Sums of line items by kind (docs/api.md section 8); discounts and creditor refunds are negative. */
export const SummaryBreakdown = Type.Object({
  principal: Type.Integer(),
  interest: Type.Integer(),
  fees: Type.Integer(),
  value_added_tax: Type.Integer(),
  discounts: Type.Integer(),
  refunds: Type.Integer(),
});

/** `summary` of a debt, and `GET /debts/{id}/summary` (minor units). */
export const Summary = Type.Object({
  amount_total: Type.Integer(),
  amount_paid: Type.Integer(),
  amount_remaining: Type.Integer(),
  breakdown: SummaryBreakdown,
});

/** The debt's own properties (everything but its id and references). */
export const debtProperties = {
  account_number: Nullable(Type.String()),
  kind: Nullable(Type.String()),
  currency: StringEnum(CURRENCIES),
  start_at: Nullable(Type.String({ format: 'date-time' })),
  tags: Type.Array(Type.String()),
  metadata: metadataSchema,
  status: Type.Object({
    value: StringEnum(DEBT_STATUSES),
    reason: Nullable(Type.String()),
    whodunnit: Nullable(Type.String({ description: 'Who made the move: the client id, or `system` for the worker.' })),
    context: Nullable(Type.String({ description: 'The `info` of a withdrawal, or what caused an automatic move.' })),
    end_at: Nullable(Type.String({ format: 'date-time', description: 'When a pause ends by itself (`paused` only).' })),
    updated_at: Type.String({ format: 'date-time' }),
  }),
  summary: Summary,
};

/** A debt embedded in another object: customer and organisation as ids, nothing expanded. */
export const DebtEmbedded = Type.Object({
  id: objectId('deb'),
  object: Type.Literal('debt'),
  customer: Type.String(),
  organisation: Type.String(),
  ...debtProperties,
  ...timestampProperties,
});

export type DebtEmbedded = Static<typeof DebtEmbedded>;

/** `debt` of an object that belongs to a debt: the id, or the debt (its references as ids) with `expand[]=debt`. */
export const DebtRef = Type.Unsafe<string | DebtEmbedded>({
  description: 'Id of the debt, or the debt with `expand[]=debt`.',
  oneOf: [{ type: 'string' }, DebtEmbedded],
});
