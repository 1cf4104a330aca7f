/**
 * The parts of the debt object (docs/api.md sections 5 and 10) that do not depend on other
 * resources: statuses, kinds, the object's own properties, and the debt as embedded in other
 * objects (`expand[]=debt` of a payment, `expand[]=debts` of a customer), whose references stay
 * ids. Kept apart so payments and customers can embed debts without an import cycle.
 */
import { CURRENCIES, Nullable, StringEnum, Type, metadataSchema, objectId, timestampProperties, type Static } from '../../schemas/common.js';

/** Every status of the lifecycle (docs/api.md section 6). */
export const DEBT_STATUSES = ['initializing', 'prepared', 'paused', 'resumed', 'disputed', 'settled', 'paid', 'withdrawn', 'deleted'] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** Kinds of debt a tenant can load. */
export const DEBT_KINDS = ['consumer_loan', 'credit_card', 'overdraft', 'utility_bill', 'telecom_bill', 'rent', 'other'] as const;
export type DebtKind = (typeof DEBT_KINDS)[number];

/** The debt's own properties (everything but its id and references). */
export const debtProperties = {
  account_number: Nullable(Type.String()),
  kind: Nullable(StringEnum(DEBT_KINDS)),
  currency: StringEnum(CURRENCIES),
  start_at: Nullable(Type.String({ format: 'date-time' })),
  tags: Type.Array(Type.String()),
  metadata: metadataSchema,
  status: Type.Object({
    value: StringEnum(DEBT_STATUSES),
    reason: Nullable(Type.String()),
    updated_at: Type.String({ format: 'date-time' }),
  }),
  summary: Type.Object({
    amount_total: Type.Integer(),
    amount_paid: Type.Integer(),
    amount_remaining: Type.Integer(),
    breakdown: Type.Object({ principal: Type.Integer(), interest: Type.Integer(), fees: Type.Integer() }),
  }),
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
