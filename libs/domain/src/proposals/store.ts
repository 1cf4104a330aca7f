/**
 * Stored proposals (docs/api.md section 18). `createProposal` records a plan the customer proposed
 * outside the policy with the statement it was made with and moves the debt to `assessing`
 * (`assess`, debts/states.ts), with `proposal.created`, in one transaction. `acceptProposal` makes
 * the payment plan through `createPlan` (the API's own create, debts/plans.ts) from the proposal's
 * terms, the debt leaving `assessing`; `declineProposal` returns the debt to being worked
 * (`resume`). Every write locks the debt first, then the proposal; a decided proposal is 409.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { createPlan } from '../debts/plans.js';
import { lockDebt, moveLockedDebt, type StatusNote } from '../debts/moves.js';
import type { DebtRow } from '../debts/schemas.js';
import { incomeAndExpendituresResource } from '../income-and-expenditure/resource.js';
import type { IncomeAndExpenditureRow } from '../income-and-expenditure/schemas.js';
import { recordEvent } from '../kernel/outbox.js';
import { iso } from '../kernel/schemas.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { FREQUENCIES, MAX_INSTALMENTS, type Frequency } from '../payment-plans/schedule.js';
import { lockActivePlan } from '../payment-plans/store.js';
import { instalmentsFor } from './policy.js';
import { proposalsResource } from './resource.js';
import type { Proposal, ProposalInput, ProposalRow, ProposalStatus } from './schemas.js';

const resource = proposalsResource;

/** Maps a row to the public object. */
export function toProposal(row: ProposalRow): Proposal {
  return {
    id: row.id,
    object: 'proposal',
    debt: row.debt_id,
    customer: row.customer_id,
    income_and_expenditure: row.income_and_expenditure_id,
    currency: row.currency,
    instalment_amount: Number(row.instalment_amount),
    frequency: row.frequency,
    instalment_count: row.instalment_count,
    start_on: typeof row.start_on === 'string' ? row.start_on.slice(0, 10) : iso(row.start_on)!.slice(0, 10),
    status: row.status,
    decided_at: iso(row.decided_at),
    decline_reason: row.decline_reason,
    payment_plan: row.payment_plan_id,
    created_at: iso(row.created_at)!,
  };
}

function invalid(param: string, message: string): ApiError {
  return new ApiError('validation_failed', message, { param, errors: [{ param, message }] });
}

/**
 * Checks what the customer proposed (pure).
 * @throws ApiError 400 `validation_failed` naming the first bad field
 */
export function checkProposalInput(input: Partial<ProposalInput>): ProposalInput {
  const { instalment_amount: amount, frequency, start_on: startOn, income_and_expenditure: statement } = input;
  if (!Number.isSafeInteger(amount) || amount! < 1) throw invalid('instalment_amount', 'instalment_amount must be a whole number of minor units, at least 1.');
  if (!FREQUENCIES.includes(frequency as Frequency)) throw invalid('frequency', `frequency must be one of ${FREQUENCIES.join(', ')}.`);
  if (
    typeof startOn !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(startOn) ||
    Number.isNaN(Date.parse(startOn)) ||
    new Date(startOn).toISOString().slice(0, 10) !== startOn
  )
    throw invalid('start_on', 'start_on must be a date, YYYY-MM-DD.');
  if (typeof statement !== 'string' || statement === '')
    throw invalid('income_and_expenditure', 'income_and_expenditure must name the statement the proposal is made with.');
  return { instalment_amount: amount!, frequency: frequency!, start_on: startOn, income_and_expenditure: statement };
}

/**
 * The portal's "propose a plan": records the customer's proposal for the tenant's debt `debtId`
 * and moves the debt to `assessing` (`debt.assessing`, `proposal.created`).
 * @param input instalment amount (minor units), frequency, first payment date, the statement's id
 * @param whodunnit `customer:<id>` from the portal
 * @throws ApiError 400 `validation_failed` (field named); 404 `resource_missing` (debt, or a
 *   statement not of this debt: param `income_and_expenditure`); 409 `resource_conflict` (an
 *   active plan or a pending proposal), `invalid_state_transition` (debt not being worked);
 *   422 `business_rule_violation` (param `start_on` in the past, `instalment_amount` too small)
 */
export async function createProposal(db: Knex, tenantId: string, debtId: string, input: Partial<ProposalInput>, whodunnit: string): Promise<Proposal> {
  const terms = checkProposalInput(input);
  try {
    return await db.transaction(async (trx) => {
      const debt = await lockDebt(trx, tenantId, debtId);
      const statement = await findOwned<IncomeAndExpenditureRow>(trx, incomeAndExpendituresResource, tenantId, terms.income_and_expenditure, {
        param: 'income_and_expenditure',
      });
      if (statement.debt_id !== debt.id)
        throw new ApiError('resource_missing', `No such income and expenditure statement of this debt: '${statement.id}'`, { param: 'income_and_expenditure' });
      if (await lockActivePlan(trx, tenantId, debt.id)) throw new ApiError('resource_conflict', 'The debt already has an active payment plan.');
      const { rows } = await trx.raw(`SELECT ?::date < (tenant_now(?) AT TIME ZONE 'UTC')::date AS past`, [terms.start_on, tenantId]);
      if (rows[0].past) throw new ApiError('business_rule_violation', 'start_on must not be in the past.', { param: 'start_on' });
      const count = instalmentsFor(debt.amount_remaining, terms.instalment_amount);
      if (count > MAX_INSTALMENTS)
        throw new ApiError('business_rule_violation', `At most ${MAX_INSTALMENTS} instalments: the amount is too small.`, { param: 'instalment_amount' });
      const id = newId(resource.idPrefix);
      await moveLockedDebt(trx, tenantId, debt, 'assess', { whodunnit, context: `proposal.created: ${id}` });
      const [row] = (await trx(resource.table)
        .insert({
          id,
          tenant_id: tenantId,
          debt_id: debt.id,
          customer_id: debt.customer_id,
          income_and_expenditure_id: statement.id,
          currency: debt.currency,
          instalment_amount: terms.instalment_amount,
          frequency: terms.frequency,
          instalment_count: count,
          start_on: terms.start_on,
          whodunnit,
        })
        .returning('*')) as ProposalRow[];
      const proposal = toProposal(row!);
      await recordEvent(trx, resource, tenantId, 'proposal.created', proposal);
      return proposal;
    });
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'proposals_one_pending')
      throw new ApiError('resource_conflict', 'The debt already has a pending proposal.');
    throw err;
  }
}

/** Finds the proposal, locks its debt, then the proposal; refuses one already decided (409). */
async function lockPending(trx: Knex.Transaction, tenantId: string, id: string): Promise<{ debt: DebtRow; proposal: ProposalRow }> {
  const found = await findOwned<ProposalRow>(trx, resource, tenantId, id);
  const debt = await lockDebt(trx, tenantId, found.debt_id);
  const proposal = await findOwned<ProposalRow>(trx, resource, tenantId, id, { forUpdate: true });
  if (proposal.status !== 'pending') throw new ApiError('invalid_state_transition', `The proposal is already ${proposal.status}.`);
  return { debt, proposal };
}

/** Writes the decision and its event. */
async function decide(
  trx: Knex.Transaction,
  tenantId: string,
  id: string,
  status: Exclude<ProposalStatus, 'pending'>,
  columns: Record<string, unknown>,
): Promise<Proposal> {
  const [row] = (await tenantRows(trx, resource, tenantId)
    .where(`${resource.table}.id`, id)
    .update({ status, decided_at: trx.fn.now(), ...columns })
    .returning('*')) as ProposalRow[];
  const proposal = toProposal(row!);
  await recordEvent(trx, resource, tenantId, `proposal.${status}`, proposal);
  return proposal;
}

/**
 * `POST /proposals/{id}/accept` (and the operator's): the debt leaves `assessing` (`resume`) and
 * takes the proposed plan through `createPlan` (`payment_plan.created`, `debt.paying`), then
 * `proposal.accepted`; all or nothing.
 * @throws ApiError 404; 409 `invalid_state_transition` (already decided, or the debt cannot take a
 *   plan), `resource_conflict` (an active plan); 422 as `createPlan` (e.g. `start_on` now past)
 */
export function acceptProposal(db: Knex, tenantId: string, id: string, note: StatusNote): Promise<Proposal> {
  return db.transaction(async (trx) => {
    const { debt, proposal } = await lockPending(trx, tenantId, id);
    if (debt.status === 'assessing') await moveLockedDebt(trx, tenantId, debt, 'resume', { ...note, context: `proposal.accepted: ${id}` });
    const terms = { frequency: proposal.frequency, start_on: toProposal(proposal).start_on, instalment_amount: Number(proposal.instalment_amount) };
    const plan = await createPlan(trx, tenantId, debt.id, terms, note);
    return decide(trx, tenantId, id, 'accepted', { decided_by: note.whodunnit, payment_plan_id: plan.id });
  });
}

/**
 * `POST /proposals/{id}/decline` (and the operator's): records `reason`; a debt still `assessing`
 * goes back to being worked (`resume`: `resumed`), then `proposal.declined`.
 * @throws ApiError 404; 409 `invalid_state_transition` (already decided)
 */
export function declineProposal(db: Knex, tenantId: string, id: string, reason: string, note: StatusNote): Promise<Proposal> {
  return db.transaction(async (trx) => {
    const { debt } = await lockPending(trx, tenantId, id);
    if (debt.status === 'assessing') await moveLockedDebt(trx, tenantId, debt, 'resume', { ...note, reason, context: `proposal.declined: ${id}` });
    return decide(trx, tenantId, id, 'declined', { decided_by: note.whodunnit, decline_reason: reason });
  });
}
