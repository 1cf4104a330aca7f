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
  timestampProperties,
  timestampSchema,
  updateBody,
  type Static,
} from '../kernel/schemas.js';
import { CREATE_STATUSES, OUTCOME_STATUSES, PAYMENT_STATUSES } from './states.js';

/** What a payment shows besides its id and its `debt`; `payment_plan` as the id. */
export const paymentProperties = {
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  status: StringEnum(PAYMENT_STATUSES),
  payment_provider: Nullable(Type.String()),
  payment_plan: Nullable(Type.String({ description: 'Id of the payment plan the payment went to.' })),
  amount_refunded: Type.Integer(),
  transaction_at: Type.String({ format: 'date-time' }),
  transaction_ref: Nullable(Type.String()),
  metadata: metadataSchema,
  ...timestampProperties,
};

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

/**
 * `PUT`/`PATCH /debts/{debtId}/payments/{id}` body: the outcome of a pending payment, its amount,
 * currency and transaction (docs/api.md section 15: only while it is pending), metadata.
 */
export const PaymentUpdate = updateBody({
  status: StringEnum(OUTCOME_STATUSES, { description: 'Outcome of a `pending` payment; any other move is 409.' }),
  amount: minorUnits({
    minimum: 1,
    description: 'New amount of a `pending` payment, minor units (> 0; with the other pending payments, at most the remaining balance).',
  }),
  currency: StringEnum(CURRENCIES, { description: "Currency of a `pending` payment; must be the debt's." }),
  transaction_at: timestampSchema('When the money of a `pending` payment was received (RFC 3339).'),
  transaction_ref: Nullable(textSchema(200, 'Your reference of the transaction of a `pending` payment (null clears it).')),
  metadata: metadataPatchSchema,
});

/** The fields of a payment that only a `pending` payment may change (docs/api.md section 15). */
export const PENDING_FIELDS = ['amount', 'currency', 'transaction_at', 'transaction_ref'] as const;

/** `POST /debts/{debtId}/payments/{id}/refund` body. */
export const PaymentRefund = Type.Object(
  { amount: Type.Optional(minorUnits({ minimum: 1, description: 'Amount to refund, minor units (default: all that is not yet refunded).' })) },
  { additionalProperties: false },
);

/** The public payment object: `debt` and `payment_plan` as ids (the API adds `expand[]` forms). */
export const Payment = Type.Object({ id: objectId('pay'), object: Type.Literal('payment'), debt: Type.String(), ...paymentProperties });

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
  /** Taken by the platform itself through its provider (migration 109); never set from an API body, not in the public object. */
  provider_managed: Type.Boolean(),
});

export type PaymentCreate = Static<typeof PaymentCreate>;
export type PaymentUpdate = Static<typeof PaymentUpdate>;
export type PaymentRefund = Static<typeof PaymentRefund>;
export type Payment = Static<typeof Payment>;
export type PaymentRow = Static<typeof PaymentRow>;
