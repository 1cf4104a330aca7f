/**
 * Payout schemas (docs/api.md section 14): the public payout and balance item, their stored rows,
 * and the operator's bodies (`POST /operator/payouts/{id}/status`, `POST /operator/payouts/run`).
 */
import {
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  currencySchema,
  idSchema,
  metadataSchema,
  objectId,
  rowColumns,
  textSchema,
  timestampProperties,
  type Static,
} from '../kernel/schemas.js';
import { PAYOUT_STATUSES, PAYOUT_TARGETS } from './states.js';

/** Kinds of balance items: a succeeded payment (with its fee), a refund, or a carried adjustment. */
export const BALANCE_ITEM_TYPES = ['payment', 'refund', 'adjustment'] as const;
export type BalanceItemType = (typeof BALANCE_ITEM_TYPES)[number];

const signed = (description: string) => Type.Integer({ description });

/** The public payout object. */
export const Payout = Type.Object({
  id: objectId('po'),
  object: Type.Literal('payout'),
  organisation_id: Type.String({ description: 'Id of the organisation paid.' }),
  currency: currencySchema,
  amount: Type.Integer({ minimum: 0, description: 'What is remitted, minor units: `gross - refunds - fees + adjustments`, never below 0.' }),
  gross: Type.Integer({ minimum: 0, description: 'Succeeded payments in it, minor units.' }),
  refunds: Type.Integer({ minimum: 0, description: 'Refunds in it, minor units (subtracted).' }),
  fees: Type.Integer({ minimum: 0, description: 'Platform fees of its payments, minor units (subtracted).' }),
  adjustments: signed(
    'Carried amounts, minor units: a remainder from an earlier payout (negative), money of a failed payout (positive), or what this payout carries forward (positive, bringing it to 0).',
  ),
  item_count: Type.Integer({ minimum: 0, description: 'Number of balance items.' }),
  status: Type.Object({
    value: StringEnum(PAYOUT_STATUSES),
    reason: Nullable(Type.String()),
    whodunnit: Nullable(Type.String({ description: '`system` for the worker, `operator:<client id>` for an operator.' })),
    updated_at: Type.String({ format: 'date-time' }),
  }),
  period_start: Type.String({ format: 'date-time' }),
  period_end: Type.String({ format: 'date-time' }),
  payout_date: Type.String({ format: 'date', description: 'Day of the run (UTC).' }),
  metadata: metadataSchema,
  ...timestampProperties,
});

/** The public balance item: one line of a payout, immutable. */
export const BalanceItem = Type.Object({
  id: objectId('bi'),
  object: Type.Literal('balance_item'),
  payout: Type.String({ description: 'Id of the payout it belongs to.' }),
  type: StringEnum(BALANCE_ITEM_TYPES),
  currency: currencySchema,
  amount: signed('Gross amount, minor units: positive for a payment, negative for a refund, either sign for an adjustment.'),
  fee: Type.Integer({ minimum: 0, description: "The platform's fee on it, minor units." }),
  net: signed('What it contributed to the payout: `amount - fee`.'),
  payment: Nullable(Type.String({ description: 'Id of the payment (payment and refund items), or null.' })),
  debt: Nullable(Type.String({ description: 'Id of the debt of the payment, or null.' })),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

/** `POST /operator/payouts/{id}/status` body. */
export const PayoutStatusChange = Type.Object(
  {
    status: StringEnum(PAYOUT_TARGETS, { description: 'The status to move to.' }),
    reason: Type.Optional(textSchema(500, 'Why; required for `failed`.')),
  },
  { additionalProperties: false },
);

/** `POST /operator/payouts/run` body. */
export const PayoutRunRequest = Type.Object(
  { organisation_id: Type.Optional(idSchema('org', 'Run this organisation now, due or not; without it, every due organisation of the tenant.')) },
  { additionalProperties: false },
);

/** `POST /operator/payouts/run` answer: the payouts made. */
export const PayoutRunResult = Type.Object({
  object: Type.Literal('payout_run'),
  payouts: Type.Array(Type.String({ description: 'Ids of the payouts made.' })),
});

/** A row of `payouts`. */
export const PayoutRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  organisation_id: Type.String(),
  currency: currencySchema,
  status: StringEnum(PAYOUT_STATUSES),
  status_reason: Nullable(Type.String()),
  status_whodunnit: Nullable(Type.String()),
  status_updated_at: DateColumn,
  amount: Type.Number(),
  gross: Type.Number(),
  refunds: Type.Number(),
  fees: Type.Number(),
  adjustments: Type.Number(),
  item_count: Type.Number(),
  /** Its items: the account's items with `seq` from `first_item_seq` to `last_item_seq`, inclusive. */
  first_item_seq: Type.Number(),
  last_item_seq: Type.Number(),
  period_start: DateColumn,
  period_end: DateColumn,
  payout_date: Type.Unsafe<Date | string>({}),
  metadata: metadataSchema,
});

/**
 * A row of `balance_items` as a payout's items are read (store.ts `payoutItems`): the stored
 * columns plus `payout_id`, the payout whose range holds it (items do not store it).
 */
export const BalanceItemRow = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  seq: Type.Number(),
  payout_id: Type.String(),
  organisation_id: Type.String(),
  currency: currencySchema,
  type: StringEnum(BALANCE_ITEM_TYPES),
  amount: Type.Number(),
  fee: Type.Number(),
  net: Type.Number(),
  payment_id: Nullable(Type.String()),
  debt_id: Nullable(Type.String()),
  description: Nullable(Type.String()),
  created_at: DateColumn,
});

/** A row of `payout_accounts`. */
export const PayoutAccountRow = Type.Object({
  ...rowColumns,
  organisation_id: Type.String(),
  currency: currencySchema,
  carried: Type.Number(),
  /** `seq` of the account's last item in a payout (0: none); the next run takes the items after it. */
  items_through: Type.Number(),
  next_run_at: DateColumn,
  last_run_at: Nullable(DateColumn),
});

export type Payout = Static<typeof Payout>;
export type BalanceItem = Static<typeof BalanceItem>;
export type PayoutStatusChange = Static<typeof PayoutStatusChange>;
export type PayoutRunRequest = Static<typeof PayoutRunRequest>;
export type PayoutRunResult = Static<typeof PayoutRunResult>;
export type PayoutRow = Static<typeof PayoutRow>;
export type BalanceItemRow = Static<typeof BalanceItemRow>;
export type PayoutAccountRow = Static<typeof PayoutAccountRow>;
