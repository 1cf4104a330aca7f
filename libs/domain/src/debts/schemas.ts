/**
 * Debt schemas (docs/api.md sections 5 and 8): the create and update bodies, the public object
 * (its `customer` and `organisation` as ids, as events carry it and other objects embed it; the API
 * adds the `expand[]` forms) and the stored row, with their types derived from them. Amounts are
 * integers in minor units.
 */
import {
  CURRENCIES,
  DateColumn,
  Nullable,
  StringEnum,
  Type,
  currencySchema,
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
import { LineItemCreate } from '../line-items/schemas.js';
import { PaymentOptionsConfiguration } from '../organisations/schemas.js';
import { DEBT_STATUSES, OPERATOR_MOVES, type OperatorStatus } from './states.js';

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

/**
 * A debt's `configurations` (docs/api.md section 15): settings of this debt in the public API's
 * shape, one key per concern, each validated (`additionalProperties: false`: an unknown key or a
 * field of the wrong shape is 400 naming it). `payment_options` overrides the organisation's
 * `payment_options_configuration` for this debt.
 */
export const DebtConfigurations = Type.Object(
  { payment_options: Type.Optional(PaymentOptionsConfiguration) },
  { additionalProperties: false, description: "The debt's settings, one key per concern." },
);
export type DebtConfigurations = Static<typeof DebtConfigurations>;

/** The debt's own properties (everything but its id and references). */
export const debtProperties = {
  account_number: Nullable(Type.String()),
  kind: Nullable(Type.String()),
  originator: Nullable(Type.String({ description: 'Who the debt was originally owed to, when it was sold or assigned.' })),
  configurations: DebtConfigurations,
  currency: StringEnum(CURRENCIES),
  start_at: Nullable(Type.String({ format: 'date-time' })),
  tags: Type.Array(Type.String()),
  metadata: metadataSchema,
  status: Type.Object({
    value: StringEnum(DEBT_STATUSES),
    reason: Nullable(Type.String()),
    whodunnit: Nullable(Type.String({ description: 'Who made the move: the client id, or `system` for the worker.' })),
    context: Nullable(Type.String({ description: 'The `info` of a withdrawal, or what caused an automatic move.' })),
    end_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When the status ends by itself: a timed pause (`paused`), a legal protection such as a standard breathing space, or the contact pause of a vulnerability disclosure (`follow_up_required`).',
      }),
    ),
    updated_at: Type.String({ format: 'date-time' }),
  }),
  summary: Summary,
};

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
  originator: Nullable(textSchema(200, 'Who the debt was originally owed to, when it was sold or assigned.')),
  configurations: DebtConfigurations,
  start_at: timestampSchema(),
  tags: Type.Array(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}$', maxLength: 40 }), { maxItems: 20, uniqueItems: true }),
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
    originator: Type.Optional(editable.originator),
    configurations: Type.Optional(editable.configurations),
    start_at: Type.Optional(editable.start_at),
    tags: Type.Optional(editable.tags),
    metadata: Type.Optional(editable.metadata),
  },
  // `line_items` or `breakdown`, not both: stated in the schema (400 naming `line_items`).
  { additionalProperties: false, not: { required: ['breakdown', 'line_items'] } },
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

/** The public debt object: `customer` and `organisation` as ids, nothing expanded. */
export const Debt = Type.Object({
  id: objectId('deb'),
  object: Type.Literal('debt'),
  customer: Type.String(),
  organisation: Type.String(),
  ...debtProperties,
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
  originator: Nullable(Type.String()),
  configurations: DebtConfigurations,
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
  /** The collection engine's place in the strategy (docs/api.md section 13): the next step's index. */
  engine_step: Type.Integer(),
  /** When the engine looks at the debt next; null: nothing due. */
  engine_due_at: Type.Union([DateColumn, Type.Null()]),
  /** First contact (`contacted`): strategy days count from it. */
  contacted_at: Type.Union([DateColumn, Type.Null()]),
});

export type DebtCreate = Static<typeof DebtCreate>;
export type DebtUpdate = Static<typeof DebtUpdate>;
export type Debt = Static<typeof Debt>;
export type DebtRow = Static<typeof DebtRow>;
export type Summary = Static<typeof Summary>;

/** `POST /operator/debts/{id}/status` body (docs/api.md section 12). */
export const OperatorStatusChange = Type.Object(
  {
    status: StringEnum(Object.keys(OPERATOR_MOVES) as OperatorStatus[], {
      description: 'The operations, legal or action-required status to move the debt to, or `resumed` to put it back to work.',
    }),
    reason: textSchema(500, 'Why: stored on the status with the operator as `whodunnit`.'),
    end_at: Type.Optional(timestampSchema('`legal_protection` only: when the protection ends (a future time); the debt then resumes.')),
  },
  { additionalProperties: false },
);
export type OperatorStatusChange = Static<typeof OperatorStatusChange>;
