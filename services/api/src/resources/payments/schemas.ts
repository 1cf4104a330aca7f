/**
 * Payment schemas (docs/api.md sections 5 and 8): the create, update and refund bodies, the public
 * object and the stored row, with their types derived from them. Amounts in minor units.
 */
import {
  CURRENCIES,
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  idSchema,
  metadataPatchSchema,
  metadataSchema,
  minorUnits,
  objectId,
  rowColumns,
  textSchema,
  timestampSchema,
  updateBody,
  type Static,
} from '../../schemas/common.js';
import { DebtRef } from '../debts/fields.js';
import { PaymentPlanEmbedded } from '../payment-plans/schemas.js';
import { paymentProperties } from './fields.js';
import { CREATE_STATUSES, OUTCOME_STATUSES, PAYMENT_STATUSES } from './states.js';

export { PaymentEmbedded } from './fields.js';

/** `POST /debts/{debtId}/payments` body. */
export const PaymentCreate = Type.Object(
  {
    amount: minorUnits({ minimum: 1, description: 'Amount, minor units (> 0; with the pending payments, at most the remaining balance).' }),
    currency: StringEnum(CURRENCIES, { description: "ISO 4217 currency code; must be the debt's." }),
    status: Type.Optional(StringEnum(CREATE_STATUSES, { description: '`succeeded` (default) counts at once; `pending` waits for its outcome.' })),
    payment_provider: Type.Optional(textSchema(100, 'Who processed the payment (free text, e.g. `stripe`).')),
    payment_plan_id: Type.Optional(idSchema('pp', "The debt's active payment plan the payment is for (default: the active plan, if any).")),
    transaction_at: Type.Optional(timestampSchema('When the money was received (RFC 3339); defaults to now.')),
    transaction_ref: Type.Optional(textSchema(200, 'Your reference of the transaction (bank or PSP reference).')),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);

/** `PUT`/`PATCH /debts/{debtId}/payments/{id}` body: the outcome of a pending payment, metadata. */
export const PaymentUpdate = updateBody({
  status: StringEnum(OUTCOME_STATUSES, { description: 'Outcome of a `pending` payment; any other move is 409.' }),
  metadata: metadataPatchSchema,
});

/** `POST /debts/{debtId}/payments/{id}/refund` body. */
export const PaymentRefund = Type.Object(
  { amount: Type.Optional(minorUnits({ minimum: 1, description: 'Amount to refund, minor units (default: all that is not yet refunded).' })) },
  { additionalProperties: false },
);

/** `payment_plan` of a payment: null, the plan's id, or the plan with `expand[]=payment_plan`. */
const PaymentPlanRef = Type.Unsafe<string | PaymentPlanEmbedded | null>({
  description: 'Id of the payment plan the payment went to (or null), or the plan with `expand[]=payment_plan`.',
  oneOf: [{ type: 'null' }, { type: 'string' }, PaymentPlanEmbedded],
});

/** The public payment object. */
export const Payment = Type.Object({ id: objectId('pay'), object: Type.Literal('payment'), debt: DebtRef, ...paymentProperties, payment_plan: PaymentPlanRef });

/** A row of `payments`; amounts in minor units. */
export const PaymentRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  status: StringEnum(PAYMENT_STATUSES),
  payment_provider: Nullable(Type.String()),
  payment_plan_id: Nullable(Type.String()),
  amount_refunded: Type.Integer(),
  transaction_at: DateColumn,
  transaction_ref: Nullable(Type.String()),
  metadata: metadataSchema,
});

export type PaymentCreate = Static<typeof PaymentCreate>;
export type PaymentUpdate = Static<typeof PaymentUpdate>;
export type PaymentRefund = Static<typeof PaymentRefund>;
export type Payment = Static<typeof Payment>;
export type PaymentRow = Static<typeof PaymentRow>;
