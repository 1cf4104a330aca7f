/**
 * The collection engine's decisions on one debt the worker has locked (docs/api.md sections 12
 * and 13), in the worker's transaction, by the engine's clock `now` (the tenant's clock plus the
 * worker's offset):
 * - `analyseDebts` (a batch, set-wise): a `prepared`, `adjusted` or `resumed` debt (or an `enriching` or
 *   `contact_failed` one that has a new contact detail) moves to `analysing`, then to `enriching`
 *   when the customer has no usable detail for any step of the strategy, back to `contacted` when
 *   it was contacted before, else its next step is due now.
 * - `runSteps` (a batch's communications inserted in one statement): the due step of each debt
 *   being worked, under the contact rules of section 12 (no contact in a status that forbids it,
 *   only 08:00-21:00 in the customer's zone, at most the strategy's contacts per 7 days, never to
 *   an undeliverable or deleted detail): a step that may not run now waits for the next allowed
 *   time; a step whose channel cannot reach the customer goes to their next usable channel, the
 *   same step and template (`usableChannels`, channels.ts). A step that runs makes one communication (the unique index makes it once per debt and
 *   step), `queued` for the worker to hand over after commit, or `failed` with the reason when it
 *   cannot be rendered. When no detail is left, the debt moves to `enriching` or
 *   `contact_failed`; after the last step, to `process_exhausted`. The last step, when it is
 *   meant for a later day than the first, never runs for a debt nothing was handed over for yet
 *   (it would be the customer's first message). The contact rules and the making of the message
 *   are compose.ts's (`contactGate`, `composeMessage`), which a pay-later promise's reminder shares.
 * What they read about the debt comes from `EngineReads` (reads.ts): the database, or what a
 * worker's batch loaded for all its debts at once.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { SYSTEM_ACTOR, moveLockedDebt } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import { DEBT_MACHINE, forbidsContact, type DebtMove } from '../debts/states.js';
import { moveLockedDebts } from '../debts/set-wise.js';
import { setEngineState, type EngineColumns } from '../debts/engine-state.js';
import type { CollectionStrategy } from '../organisations/strategy.js';
import { acceptedChannels } from '../customers/preferences.js';
import { usableChannels } from './channels.js';
import { composeMessage, contactGate, type SendTarget } from './compose.js';
import { directReads, type EngineReads } from './reads.js';
import type { Links } from './render.js';
import type { CommunicationRow } from './schemas.js';
import { insertOutbounds, type OutboundInput } from './store.js';
import { insertLinks, type PlannedLink } from './portal-link.js';

/** Statuses whose debts the engine takes in (`analyseDebts`). */
export const INTAKE_STATUSES = ['prepared', 'adjusted', 'resumed'] as const;
/** Statuses that wait for a new contact detail before the engine takes them in again. */
export const WAITING_FOR_DETAIL_STATUSES = ['enriching', 'contact_failed'] as const;
/** Statuses whose strategy steps the engine runs (`runSteps`). */
export const STEP_STATUSES = ['analysing', 'contacted', 'contact_established'] as const;

/** Days after the last step before a debt with no answer is `process_exhausted`. */
export const EXHAUST_AFTER_DAYS = 7;
const DAY_MS = 86_400_000;

/** What the engine did with a debt. */
export type EngineOutcome =
  { kind: 'moved' | 'waiting' | 'failed'; context: string } | { kind: 'send'; context: string; communication: CommunicationRow; to: SendTarget };

/** Moves the locked debt as the engine (`whodunnit: system`), writing the engine's `state` with it. */
async function move(trx: Knex.Transaction, debt: DebtRow, to: DebtMove, context: string, state: Record<string, unknown> = {}): Promise<DebtRow> {
  const moved = await moveLockedDebt(trx, debt.tenant_id, debt, to, { whodunnit: SYSTEM_ACTOR, context }, state);
  return { ...debt, ...state, status: moved.status.value };
}

/** When step `index` is due for a debt first contacted at `contactedAt` (before contact: at once). */
export function stepDueAt(strategy: CollectionStrategy, index: number, contactedAt: Date | null, now: Date): Date {
  const step = strategy.steps[index];
  if (!contactedAt) return now;
  if (!step) return new Date(contactedAt.getTime() + (strategy.steps[strategy.steps.length - 1]!.day + EXHAUST_AFTER_DAYS) * DAY_MS);
  return new Date(contactedAt.getTime() + step.day * DAY_MS);
}

/** How a locked debt is taken in: its moves in order, each with the engine's bookkeeping written with it, and what to log. */
async function planIntake(
  locked: DebtRow,
  now: Date,
  reads: EngineReads,
): Promise<{ moves: Array<{ move: DebtMove; context: string; state: EngineColumns }>; outcome: EngineOutcome }> {
  const { strategy } = await reads.strategyFor(locked);
  const details = await reads.usableDetails(locked);
  const taken = { move: 'analyse' as const, context: `collection engine: taken in from ${locked.status}`, state: {} };
  // A customer gone meanwhile is the step's to record on the debt (`stepRefused`), not the intake's to fail the batch.
  const accepted = await reads.customer(locked).then(acceptedChannels, (err: unknown) => {
    if (err instanceof ApiError) return undefined;
    throw err;
  });
  if (!strategy.steps.some((s) => usableChannels(s.delivery_method, details, accepted).length > 0)) {
    return {
      moves: [taken, { move: 'enrich', context: 'no usable contact detail for any step of the strategy', state: { engine_due_at: null } }],
      outcome: { kind: 'moved', context: 'enriching: no usable contact detail' },
    };
  }
  if (locked.contacted_at) {
    const state = { engine_due_at: stepDueAt(strategy, locked.engine_step, locked.contacted_at, now) };
    return {
      moves: [taken, { move: 'contact', context: `contacted before, at ${locked.contacted_at.toISOString()}`, state }],
      outcome: { kind: 'moved', context: 'contacted: back to the strategy' },
    };
  }
  return { moves: [{ ...taken, state: { engine_due_at: now } }], outcome: { kind: 'moved', context: 'analysing: first step due' } };
}

/**
 * Takes locked debts of `INTAKE_STATUSES` or `WAITING_FOR_DETAIL_STATUSES` in (see module doc), a
 * worker's batch, each at its engine clock `now`: their moves are made set-wise, one statement per
 * stage (`moveLockedDebts`).
 * @returns what was done with each, in the order given
 */
export async function analyseDebts(trx: Knex.Transaction, debts: ReadonlyArray<{ debt: DebtRow; now: Date }>, reads: EngineReads): Promise<EngineOutcome[]> {
  const plans: Array<Awaited<ReturnType<typeof planIntake>>> = [];
  for (const { debt, now } of debts) plans.push(await planIntake(debt, now, reads));
  const current = debts.map((d) => d.debt);
  for (let stage = 0; plans.some((p) => p.moves[stage]); stage++) {
    const at = plans.flatMap((p, i) => (p.moves[stage] ? [i] : []));
    const moved = await moveLockedDebts(
      trx,
      at.map((i) => {
        const m = plans[i]!.moves[stage]!;
        return { locked: current[i]!, move: m.move, note: { whodunnit: SYSTEM_ACTOR, context: m.context }, state: m.state };
      }),
    );
    at.forEach((i, k) => (current[i] = moved[k]!));
  }
  return plans.map((p) => p.outcome);
}

/** Sets when the engine looks at the debt next and says why. */
async function waitUntil(trx: Knex.Transaction, debt: DebtRow, at: Date | null, why: string): Promise<EngineOutcome> {
  await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: at });
  return { kind: 'waiting', context: at ? `${why}; next at ${at.toISOString()}` : why };
}

/** No step left: `process_exhausted` once the last step has passed, `contact_failed` when nothing was ever accepted. */
async function finish(trx: Knex.Transaction, debt: DebtRow, strategy: CollectionStrategy, now: Date): Promise<EngineOutcome> {
  if (debt.status === 'analysing') {
    await move(trx, debt, 'fail-contact', 'every strategy step passed without a communication its provider accepted');
    return waitUntil(trx, debt, null, 'contact_failed');
  }
  const end = stepDueAt(strategy, strategy.steps.length, debt.contacted_at, now);
  if (end > now) return waitUntil(trx, debt, end, 'last step passed; waiting for an answer');
  await move(trx, debt, 'exhaust', `the strategy's last step passed ${EXHAUST_AFTER_DAYS} days ago without a payment`);
  return waitUntil(trx, debt, null, 'process_exhausted');
}

/** What `planStep` decided for a debt: its outcome, or a communication to insert with the batch's others. */
type StepPlan =
  | { kind: 'done'; outcome: EngineOutcome }
  | {
      kind: 'make';
      index: number;
      input: OutboundInput;
      /** where it goes and its portal link; null when it could not be rendered */ to: SendTarget | null;
      link?: PlannedLink;
    };

/** Decides the due step of a locked debt (see `runSteps`); a communication it makes is left to the caller to insert. */
async function planStep(trx: Knex.Transaction, debt: DebtRow, now: Date, links: Links, reads: EngineReads): Promise<StepPlan> {
  const done = async (outcome: Promise<EngineOutcome> | EngineOutcome): Promise<StepPlan> => ({ kind: 'done', outcome: await outcome });
  if (forbidsContact(debt.status)) return done(waitUntil(trx, debt, null, `status '${debt.status}' forbids contact`));
  const { strategy } = await reads.strategyFor(debt);
  const index = debt.engine_step;
  const step = strategy.steps[index];
  if (!step) return done(finish(trx, debt, strategy, now));
  if (!debt.contacted_at && index > 0 && index === strategy.steps.length - 1 && step.day > strategy.steps[0]!.day) {
    // The final step, meant for a later day, is never a customer's first message: with nothing handed over before it, the strategy ends.
    await setEngineState(trx, debt.tenant_id, debt.id, { engine_step: index + 1, engine_due_at: now });
    return done({ kind: 'waiting', context: `step ${index} passed: the last step is never a first message` });
  }
  const dueAt = stepDueAt(strategy, index, debt.contacted_at, now);
  if (dueAt > now) return done(waitUntil(trx, debt, dueAt, `step ${index} due on day ${step.day}`));
  const gate = await contactGate(debt, now, reads, step.delivery_method);
  if (gate.kind === 'wait') return done(waitUntil(trx, debt, gate.at, gate.why));
  if (gate.kind === 'unreachable') return done(noDetailLeft(trx, debt));
  const made = await composeMessage(debt, gate, { ref: step.template, method: step.delivery_method }, index, now, links, reads);
  await setEngineState(trx, debt.tenant_id, debt.id, { engine_step: index + 1, engine_due_at: made.to ? null : now });
  return { kind: 'make', index, ...made };
}

/**
 * Runs the due steps of locked debts of `STEP_STATUSES` (see module doc), each at its engine clock
 * `now`, one after the other; the communications they make are inserted in one statement
 * (`insertOutbounds`) after all are decided.
 * @param links the reply address and payment link of the debts' communications
 * @param reads what the engine reads about the debts (`directReads`, or a batch's `batchReads`)
 * @param leaseSeconds how long the worker has to hand the communications over before another may (`HAND_OVER_LEASE_SECONDS` by default)
 * @returns what was done with each, in the order given; `send` carries the queued communication for the worker to hand over
 */
export async function runSteps(
  trx: Knex.Transaction,
  debts: ReadonlyArray<{ debt: DebtRow; now: Date }>,
  links: Links,
  reads: EngineReads = directReads(trx),
  leaseSeconds?: number,
): Promise<EngineOutcome[]> {
  const plans: StepPlan[] = [];
  for (const { debt, now } of debts) {
    try {
      plans.push(await planStep(trx, debt, now, links, reads));
    } catch (err) {
      // A debt the domain refuses (its customer gone) is recorded on that debt alone; a database error fails the batch.
      if (!(err instanceof ApiError)) throw err;
      plans.push({ kind: 'done', outcome: await stepRefused(trx, debt, err) });
    }
  }
  const makes = plans.flatMap((plan, i) => (plan.kind === 'make' ? [{ plan, i }] : []));
  const rows = await insertOutbounds(
    trx,
    makes.map(({ plan, i }) => ({ tenantId: debts[i]!.debt.tenant_id, input: plan.input, now: debts[i]!.now })),
    leaseSeconds,
  );
  const made = new Map(makes.map(({ i }, k) => [i, rows[k]]));
  await insertLinks(
    trx,
    makes.map(({ plan, i }) => ({ communication: plan.to ? made.get(i) : undefined, link: plan.link })),
  );
  return plans.map((plan, i): EngineOutcome => {
    if (plan.kind === 'done') return plan.outcome;
    const communication = made.get(i);
    if (!communication) return { kind: 'waiting', context: `step ${plan.index} already has its communication` };
    if (!plan.to) return { kind: 'failed', context: plan.input.failure! };
    return { kind: 'send', context: `step ${plan.index}: ${plan.input.deliveryMethod} ${communication.id}`, communication, to: plan.to };
  });
}

/**
 * A debt whose step the domain refused (e.g. its customer is gone) moves to `follow_up_required`
 * with the reason (the tenant must act); the engine leaves it until it is worked again.
 */
async function stepRefused(trx: Knex.Transaction, debt: DebtRow, err: ApiError): Promise<EngineOutcome> {
  const context = `collection engine: step ${debt.engine_step} cannot run: ${err.message}`;
  if (DEBT_MACHINE.allows(debt.status, 'require-follow-up')) await move(trx, debt, 'require-follow-up', context);
  await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: null });
  return { kind: 'moved', context };
}

/**
 * The customer has no usable detail for any step: an `analysing` debt waits in `enriching`, a
 * `contacted` one is `contact_failed` (section 12); a debt with contact established waits.
 */
export async function noDetailLeft(trx: Knex.Transaction, debt: DebtRow, whodunnit = SYSTEM_ACTOR): Promise<EngineOutcome> {
  const to: DebtMove | undefined = DEBT_MACHINE.allows(debt.status, 'enrich')
    ? 'enrich'
    : DEBT_MACHINE.allows(debt.status, 'fail-contact')
      ? 'fail-contact'
      : undefined;
  if (to) await moveLockedDebt(trx, debt.tenant_id, debt, to, { whodunnit, context: 'no deliverable contact detail left' });
  await setEngineState(trx, debt.tenant_id, debt.id, { engine_due_at: null });
  return { kind: 'moved', context: to ? `${to}: no deliverable contact detail left` : 'no deliverable contact detail left' };
}
