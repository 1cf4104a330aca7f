/**
 * What a customer tells us about their circumstances (docs/api.md section 18), as moves of the
 * debt's one lifecycle (states.ts) through moves.ts, each in one transaction with its event, no
 * proof asked:
 * - a breathing space (the Debt Respite Scheme): `standard` (60 days from `start_on`) or
 *   `mental_health_crisis` (as long as the crisis: no `end_at` until an operator ends it) moves
 *   the debt to `legal_protection` (`debt.legal_protection`): no contact, interest or fees
 *   (section 12); a standard one ends by itself at `end_at` (the worker's timed-status end);
 * - a vulnerability disclosure (health, bereavement, income shock, other; free text) moves it to
 *   `follow_up_required` (`debt.follow_up_required`) with contact paused 30 days: the worker
 *   resumes the debt at its `end_at`, and the collection engine takes it up again.
 * The actor is the tenant's client id, or `customer:<id>` (the customer's own account), who may
 * only act on their own debts.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { Type, StringEnum, dateSchema, textSchema, type Static } from '../kernel/schemas.js';
import { findOwned } from '../kernel/scoped.js';
import { addDays } from '../payment-plans/schedule.js';
import { debtsResource } from './resource.js';
import type { Debt, DebtRow } from './schemas.js';
import { instantOf, moveDebt, requireFuture } from './moves.js';

/** Days a standard breathing space lasts (Debt Respite Scheme). */
export const BREATHING_SPACE_DAYS = 60;
/** Days contact pauses after a vulnerability disclosure. */
export const VULNERABILITY_PAUSE_DAYS = 30;

export const BREATHING_SPACE_KINDS = ['standard', 'mental_health_crisis'] as const;
export const VULNERABILITY_KINDS = ['health', 'bereavement', 'income_shock', 'other'] as const;

/** `POST /debts/{id}/breathing_space` body. */
export const BreathingSpaceInput = Type.Object(
  {
    kind: StringEnum(BREATHING_SPACE_KINDS, {
      description: '`standard` (ends 60 days after `start_on`) or `mental_health_crisis` (lasts as long as the crisis: no `end_at`).',
    }),
    start_on: dateSchema('When the breathing space started (YYYY-MM-DD, today or earlier).'),
    adviser_reference: textSchema(100, "The debt adviser's reference for the breathing space."),
  },
  { additionalProperties: false },
);
export type BreathingSpaceInput = Static<typeof BreathingSpaceInput>;

/** `POST /debts/{id}/vulnerability` body. */
export const VulnerabilityInput = Type.Object(
  {
    kind: StringEnum(VULNERABILITY_KINDS, { description: 'What makes the debt harder to deal with.' }),
    details: textSchema(2000, 'In the customer’s words.'),
  },
  { additionalProperties: false },
);
export type VulnerabilityInput = Static<typeof VulnerabilityInput>;

/** The customer id of a `customer:<id>` actor, or undefined for a tenant's client. */
function customerOf(actor: string): string | undefined {
  return actor.startsWith('customer:') ? actor.slice('customer:'.length) : undefined;
}

/**
 * The debt as the actor may see it: a customer only their own (another's is 404, as unknown).
 * @throws ApiError 404 `resource_missing`
 */
async function debtOfActor(db: Knex, tenantId: string, debtId: string, actor: string): Promise<DebtRow> {
  const debt = await findOwned<DebtRow>(db, debtsResource, tenantId, debtId);
  const customer = customerOf(actor);
  if (customer !== undefined && debt.customer_id !== customer) throw new ApiError('resource_missing', `No such debt: '${debtId}'`);
  return debt;
}

/** 422 naming `start_on` unless it is the tenant's today or earlier (its clock, `tenant_now`). */
async function requireStarted(db: Knex, tenantId: string, startOn: string): Promise<void> {
  const { rows } = await db.raw(`SELECT ?::date > (tenant_now(?) AT TIME ZONE 'UTC')::date AS later`, [startOn, tenantId]);
  if (rows[0].later) throw new ApiError('business_rule_violation', 'start_on must be today or earlier.', { param: 'start_on' });
}

/**
 * Records a breathing space: the debt moves to `legal_protection` (`debt.legal_protection`),
 * reason `breathing space (<kind>)`, context naming the adviser's reference and start; a standard
 * one with `end_at` 60 days after `start_on` (the start of that day in the customer's zone).
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (a terminal,
 *   `initializing` or already protected debt), 422 `business_rule_violation` (param `start_on`:
 *   a start after today, or a standard breathing space already over)
 */
export async function declareBreathingSpace(db: Knex, tenantId: string, debtId: string, input: BreathingSpaceInput, actor: string): Promise<Debt> {
  await debtOfActor(db, tenantId, debtId, actor);
  await requireStarted(db, tenantId, input.start_on);
  const endAt = input.kind === 'standard' ? await instantOf(db, tenantId, debtId, addDays(input.start_on, BREATHING_SPACE_DAYS)) : null;
  const note = {
    reason: `breathing space (${input.kind})`,
    whodunnit: actor,
    context: `adviser reference ${input.adviser_reference}; started ${input.start_on}`,
    endAt,
  };
  return moveDebt(db, tenantId, debtId, 'protect', note, async (trx) => {
    if (endAt === null) return;
    try {
      await requireFuture(trx, tenantId, endAt);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw new ApiError('business_rule_violation', `A standard breathing space started on ${input.start_on} has already ended.`, { param: 'start_on' });
    }
  });
}

/**
 * Records a vulnerability disclosure: the debt moves to `follow_up_required`
 * (`debt.follow_up_required`), reason `vulnerability (<kind>)`, the customer's words as context,
 * contact paused until `end_at` (30 days from now by the tenant's clock), when the worker resumes it.
 * @throws ApiError 404 `resource_missing`, 409 `invalid_state_transition` (a debt not being
 *   worked: e.g. paused, disputed, under legal protection, terminal, or already awaiting follow-up)
 */
export async function discloseVulnerability(db: Knex, tenantId: string, debtId: string, input: VulnerabilityInput, actor: string): Promise<Debt> {
  await debtOfActor(db, tenantId, debtId, actor);
  const { rows } = await db.raw(`SELECT tenant_now(?) + make_interval(days => ?) AS end_at`, [tenantId, VULNERABILITY_PAUSE_DAYS]);
  const note = { reason: `vulnerability (${input.kind})`, whodunnit: actor, context: input.details, endAt: (rows[0].end_at as Date).toISOString() };
  return moveDebt(db, tenantId, debtId, 'require-follow-up', note);
}
