/**
 * Line item schemas (docs/api.md section 8): the create body (also an element of a debt's or an
 * invoice's `line_items`), the public object and the stored row. `amount` is signed, minor units.
 */
import {
  CURRENCIES,
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  timestampSchema,
  type Static,
} from '../kernel/schemas.js';
import { LINE_ITEM_KINDS } from './kinds.js';

const MAX_AMOUNT = 100_000_000_000_000;

/** `POST /debts/{debtId}/line_items` body. */
export const LineItemCreate = Type.Object(
  {
    kind: StringEnum(LINE_ITEM_KINDS, {
      description: '`debt`, `interest`, `fee`, `vat`, `refund` take positive amounts; `credit`, `discount`, `creditor_refund` negative ones.',
    }),
    amount: Type.Integer({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT, description: 'Signed amount in minor units, never 0.' }),
    currency: Type.Optional(StringEnum(CURRENCIES, { description: "ISO 4217 code; must be the debt's (default)." })),
    description: Type.Optional(textSchema(500)),
    transaction_at: Type.Optional(timestampSchema('When the amount arose (RFC 3339); defaults to now.')),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false },
);

/** The public line item object. */
export const LineItem = Type.Object({
  id: objectId('li'),
  object: Type.Literal('line_item'),
  debt: Type.String(),
  invoice: Nullable(Type.String()),
  kind: StringEnum(LINE_ITEM_KINDS),
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  description: Nullable(Type.String()),
  transaction_at: Type.String({ format: 'date-time' }),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** A row of `line_items`. */
export const LineItemRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  invoice_id: Nullable(Type.String()),
  kind: StringEnum(LINE_ITEM_KINDS),
  amount: Type.Integer(),
  currency: StringEnum(CURRENCIES),
  description: Nullable(Type.String()),
  transaction_at: DateColumn,
  metadata: metadataSchema,
});

export type LineItemCreate = Static<typeof LineItemCreate>;
export type LineItem = Static<typeof LineItem>;
export type LineItemRow = Static<typeof LineItemRow>;
