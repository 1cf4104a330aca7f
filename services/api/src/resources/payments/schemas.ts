/**
 * Payment schemas (docs/api.md section 5): the create body, the public object and the stored row,
 * with their types derived from them. `amount` is an integer in minor units.
 */
import { DebtEmbedded } from '../debts/fields.js';
import { CURRENCIES, DateColumn, Nullable, StringEnum, Type, metadataSchema, minorUnits, objectId, rowColumns, textSchema, timestampProperties, timestampSchema, type Static } from '../../schemas/common.js';

/** `POST /debts/{debtId}/payments` body. */
export const PaymentCreate = Type.Object(
  {
    amount: minorUnits({ minimum: 1, description: 'Amount received, minor units (> 0, at most the remaining balance).' }),
    currency: StringEnum(CURRENCIES, { description: "ISO 4217 currency code; must be the debt's." }),
    transaction_at: Type.Optional(timestampSchema('When the money was received (RFC 3339); defaults to now.')),
    transaction_ref: Type.Optional(textSchema(200, 'Your reference of the transaction (bank or PSP reference).')),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);

const paymentProperties = {
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  transaction_at: Type.String({ format: 'date-time' }),
  transaction_ref: Nullable(Type.String()),
  metadata: metadataSchema,
  ...timestampProperties,
};

/** `debt` of a payment: the id, or the debt (its own references as ids) with `expand[]=debt`. */
const DebtRef = Type.Unsafe<string | DebtEmbedded>({
  description: 'Id of the debt paid, or the debt with `expand[]=debt`.',
  oneOf: [{ type: 'string' }, DebtEmbedded],
});

/** The public payment object. */
export const Payment = Type.Object({ id: objectId('pay'), object: Type.Literal('payment'), debt: DebtRef, ...paymentProperties });

/** A payment embedded in its debt (`expand[]=payments`): `debt` is the id. */
export const PaymentEmbedded = Type.Object({ id: objectId('pay'), object: Type.Literal('payment'), debt: Type.String(), ...paymentProperties });

/** A row of `payments`; `amount` in minor units. */
export const PaymentRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  transaction_at: DateColumn,
  transaction_ref: Nullable(Type.String()),
  metadata: metadataSchema,
});

export type PaymentCreate = Static<typeof PaymentCreate>;
export type Payment = Static<typeof Payment>;
export type PaymentEmbedded = Static<typeof PaymentEmbedded>;
export type PaymentRow = Static<typeof PaymentRow>;
