/**
 * The parts of the payment object (docs/api.md sections 8 and 10) that do not depend on other
 * resources: its own properties, and the payment as embedded in other objects (`expand[]=payments`
 * of a debt or a payment plan), whose references stay ids. Kept apart so payment plans can embed
 * payments while payments embed their plan, without an import cycle.
 */
import { CURRENCIES, Nullable, StringEnum, Type, metadataSchema, objectId, timestampProperties, type Static } from '../../schemas/common.js';
import { PAYMENT_STATUSES } from './states.js';

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

/** A payment embedded in another object (`expand[]=payments`): `debt` and `payment_plan` are ids. */
export const PaymentEmbedded = Type.Object({ id: objectId('pay'), object: Type.Literal('payment'), debt: Type.String(), ...paymentProperties });

export type PaymentEmbedded = Static<typeof PaymentEmbedded>;
