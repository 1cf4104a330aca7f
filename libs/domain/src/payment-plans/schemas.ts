/**
 * Payment plan schemas (docs/api.md section 9): the create, reschedule and delay bodies, the
 * public object (with its schedule; its `debt` as the id, as events carry it and as other objects
 * embed it) and the stored row. Amounts in minor units, dates `YYYY-MM-DD`.
 */
import {
  Nullable,
  StringEnum,
  Type,
  dateSchema,
  idSchema,
  metadataSchema,
  minorUnits,
  objectId,
  rowColumns,
  timestampProperties,
  type Static,
} from '../kernel/schemas.js';
import { ACTOR_SOURCES } from '../kernel/actors.js';
import { FREQUENCIES, MAX_INSTALMENTS } from './schedule.js';
import type { Instalment as StoredInstalment } from './instalments.js';
import { INSTALMENT_STATUSES, PLAN_STATUSES } from './states.js';

const day = (description: string) => dateSchema(description);

/** The terms a schedule is computed from; `instalment_amount` and `instalment_count` exclude each other. */
const terms = {
  frequency: StringEnum(FREQUENCIES, { description: 'How often an instalment falls due.' }),
  start_on: day('Due date of the first instalment (YYYY-MM-DD, today or later).'),
  instalment_amount: Type.Optional(
    minorUnits({ minimum: 1, description: 'Each instalment, minor units (the last takes the remainder). Not with `instalment_count`.' }),
  ),
  instalment_count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INSTALMENTS, description: 'Number of instalments. Not with `instalment_amount`.' })),
};

/** Exactly one of `instalment_amount` and `instalment_count`, stated in the schema (400 naming them). */
const oneInstalmentTerm = { oneOf: [{ required: ['instalment_amount'] }, { required: ['instalment_count'] }] };

/** `POST /debts/{debtId}/payment_plans` body. */
export const PaymentPlanCreate = Type.Object(
  {
    ...terms,
    grace_days: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 30, default: 5, description: 'Days after a due date before an unpaid instalment is missed (default 5).' }),
    ),
    metadata: Type.Optional(metadataSchema),
  },
  { additionalProperties: false, ...oneInstalmentTerm },
);

/** `POST /payment_plans` (and `/payment-plans`) body: the debt named in it, as the public API's clients send it (docs/api.md section 15). */
export const PaymentPlanCreateForDebt = Type.Object(
  { debt_id: idSchema('deb', 'The debt the plan pays (yours).'), ...PaymentPlanCreate.properties },
  { additionalProperties: false },
);
export type PaymentPlanCreateForDebt = Static<typeof PaymentPlanCreateForDebt>;

/** `PATCH /payment_plans/{id}/reschedule` body: new terms for what is unpaid. */
export const PaymentPlanReschedule = Type.Object(terms, { additionalProperties: false, ...oneInstalmentTerm });

/** `PATCH /payment_plans/{id}/delay` body. */
export const PaymentPlanDelay = Type.Object(
  { days: Type.Integer({ minimum: 1, maximum: 90, description: 'Days every unpaid instalment moves later.' }) },
  { additionalProperties: false },
);

/** `PATCH /payment_plans/{id}/delay_next` body (the customer's time to pay, docs/api.md section 18). */
export const PaymentPlanDelayNext = Type.Object(
  { days: Type.Integer({ minimum: 1, maximum: 14, description: 'Days (1 to 14) the next unpaid instalment, and those after it, move later.' }) },
  { additionalProperties: false },
);

/** `PATCH /payment_plans/{id}/change_day` body (the customer's time to pay, docs/api.md section 18). */
export const PaymentPlanChangeDay = Type.Object(
  {
    next_due_on: day(
      "The next unpaid instalment's new date (today or later, before the one a period after its current date); later ones follow at the plan's frequency.",
    ),
  },
  { additionalProperties: false },
);
export type PaymentPlanChangeDay = Static<typeof PaymentPlanChangeDay>;

/** One instalment of the public schedule. */
export const ShownInstalment = Type.Object({
  sequence: Type.Integer(),
  due_on: Type.String({ format: 'date' }),
  amount: Type.Integer(),
  amount_paid: Type.Integer(),
  status: StringEnum(INSTALMENT_STATUSES),
  delayed: Type.Optional(Type.Boolean({ description: "`true` once the customer's time to pay delayed this instalment (docs/api.md section 18)." })),
  day_changed: Type.Optional(Type.Boolean({ description: "`true` once the customer's time to pay changed the day of the instalments from this one on." })),
});

/** What a plan shows besides its id, its `debt` and its timestamps. */
const planProperties = {
  status: StringEnum(PLAN_STATUSES),
  frequency: StringEnum(FREQUENCIES),
  start_on: Type.String({ format: 'date' }),
  grace_days: Type.Integer(),
  amount_total: Type.Integer(),
  amount_paid: Type.Integer(),
  schedule: Type.Array(ShownInstalment),
  metadata: metadataSchema,
  whodunnit: Nullable(
    Type.String({
      description:
        'Who made the change the plan shows last (and its event): the client id, `operator:<client id>`, `customer:<cus_id>` (the portal) or `system` (the worker); null for a plan last changed before it was recorded.',
    }),
  ),
  source: Nullable(StringEnum(ACTOR_SOURCES, { description: 'Where that change came from: `api`, `portal` or `worker`.' })),
  payment_method: Type.Optional(
    Type.Object(
      {
        provider: Type.String({ description: 'The payment provider that saved the method.' }),
        label: Type.String({ description: 'What the customer recognises, e.g. `card ending 4242` (never a card number).' }),
        authority_canceled_at: Nullable(Type.String({ format: 'date-time', description: 'When the customer canceled the continuous payment authority.' })),
      },
      { description: 'The saved method the worker charges on each due date (plans agreed on the portal, docs/api.md section 18); absent otherwise.' },
    ),
  ),
};

/** The public payment plan object, `debt` as the id (the API adds `expand[]` forms). */
export const PaymentPlan = Type.Object({
  id: objectId('pp'),
  object: Type.Literal('payment_plan'),
  debt: Type.String(),
  ...planProperties,
  ...timestampProperties,
});

/** A row of `payment_plans` (`schedule` as stored: statuses upcoming|paid|missed). */
export const PaymentPlanRow = Type.Object({
  ...rowColumns,
  seq: Type.Number(),
  debt_id: Type.String(),
  status: StringEnum(PLAN_STATUSES),
  frequency: StringEnum(FREQUENCIES),
  start_on: Type.String(),
  grace_days: Type.Integer(),
  amount_total: Type.Integer(),
  amount_paid: Type.Integer(),
  schedule: Type.Array(Type.Unsafe<StoredInstalment>({})),
  next_due_on: Nullable(Type.String()),
  metadata: metadataSchema,
  payment_method_provider: Type.Optional(Nullable(Type.String())),
  payment_method_reference: Type.Optional(Nullable(Type.String())),
  payment_method_label: Type.Optional(Nullable(Type.String())),
  authority_canceled_at: Type.Optional(Nullable(Type.Unsafe<Date>({}))),
  whodunnit: Type.Optional(Nullable(Type.String())),
  source: Type.Optional(Nullable(StringEnum(ACTOR_SOURCES))),
});

export type PaymentPlanCreate = Static<typeof PaymentPlanCreate>;
export type PaymentPlanReschedule = Static<typeof PaymentPlanReschedule>;
export type PaymentPlan = Static<typeof PaymentPlan>;
export type PaymentPlanRow = Static<typeof PaymentPlanRow>;
