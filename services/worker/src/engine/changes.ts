/**
 * The collection engine's changes (docs/api.md sections 12 and 13), run by the worker's loop like
 * its time-driven changes. Due debts (due.ts) are claimed many per statement with `FOR UPDATE SKIP
 * LOCKED` (so two workers never work one debt at once); each is decided through the domain
 * (@dms/domain/communications) in the batch's one transaction, whose reads are loaded set-wise
 * for the batch (`batchReads`) and whose events are written set-wise through the outbox before
 * the commit (a write batch: `batchWrites`, `flushEvents`). Communications are handed to their providers only
 * after that transaction committed, each marked just before and recorded just after (send.ts).
 * The engine's clock is the debt's tenant's (`tenant_now`) plus the worker's offset.
 * - `debt_taken_in`: `prepared`, `adjusted`, `resumed` debts, and `enriching` or `contact_failed`
 *   ones whose customer has a contact detail added or changed since;
 * - `strategy_step`: debts being worked whose next step is due;
 * - `promise_reminded`: a pay-later promise's reminder the day before its date (reminders.ts);
 * - `send_retried`: `queued` communications whose next attempt has come (a temporary refusal's
 *   retry, or a hand-over whose worker stopped first), leased and handed over after the commit;
 * - `send_reconciled` (one at a time): communications marked handed over more than
 *   `ENGINE_RECONCILE_AFTER_SECONDS` ago whose outcome was never recorded: the provider is asked
 *   and the domain decides (`reconcileDecision`): sent, handed over again, asked again later, or
 *   failed; never resent blindly.
 * A worker killed before a commit leaves nothing (the transaction rolls back) and another redoes
 * the batch; one killed during hand-overs leaves the messages it was handing over marked, for
 * reconciliation, and the ones not yet marked to the others after their lease.
 */
import type { Knex } from '@dms/db';
import { flushEngineState, type DebtRow } from '@dms/domain/debts';
import { batchWrites, flushEvents, type BatchedTransaction } from '@dms/domain/kernel';
import {
  analyseDebts,
  applyReconciliation,
  batchReads,
  lockContactsOf,
  prepareHandOvers,
  reconcileDecision,
  runSteps,
  unsettledOf,
  type EngineOutcome,
} from '@dms/domain/communications';
import type { Clock } from '../changes/clock.js';
import type { BatchOutcome, ChangeOutcome, TimedChange } from '../changes/types.js';
import { claimQuery, dueHandOvers, dueIntake, dueReconcile, dueSteps, dueWaiting, oldestDueOf, type DueQuery } from './due.js';
import { promiseReminders } from './reminders.js';
import { handOverAll, type EngineDeps, type Handover } from './send.js';

/** Most debts one claim statement locks (the worker's `WORKER_BATCH_SIZE` bounds a check). */
export const ENGINE_CLAIM_LIMIT = 100;

type Claimed = DebtRow & { engine_now: Date };

/** Locks up to `limit` debts of `dues`, the first query's before the next one's, each oldest first by its order, with the engine's clock for each. */
async function claim(trx: Knex.Transaction, clock: Clock, dues: readonly DueQuery[], limit: number, extra: string[] = []): Promise<Claimed[]> {
  const claimed: Claimed[] = [];
  for (const due of dues) {
    if (claimed.length >= limit) break;
    claimed.push(...(await claimQuery(trx, clock, due, limit - claimed.length).select<Claimed[]>(extra)));
  }
  return claimed;
}

/** What the intake claims: the intake statuses first, then the debts a new contact detail wakes. */
const intakeDues = (trx: Knex.Transaction, tenantIds: readonly string[]): DueQuery[] => [dueIntake(trx, tenantIds), dueWaiting(trx, tenantIds)];

/** The earliest engine clock of a batch. */
const earliestOf = (claimed: readonly Claimed[]): Date => new Date(Math.min(...claimed.map((d) => new Date(d.engine_now).getTime())));

/** The made-change outcome of `debt`. */
const made = (debt: Claimed, outcome: EngineOutcome): ChangeOutcome => ({ kind: 'made', object: debt.id, tenant: debt.tenant_id, context: outcome.context });

/**
 * Decides the claimed debts with `decide` through a write batch on `outer`, with reads loaded for
 * the whole batch; the engine's bookkeeping and the events are written set-wise before the caller
 * commits.
 */
async function inBatch(
  outer: Knex.Transaction,
  claimed: Claimed[],
  decide: (trx: BatchedTransaction, claimed: Claimed[], reads: Awaited<ReturnType<typeof batchReads>>) => Promise<EngineOutcome[]>,
): Promise<Array<{ debt: Claimed; outcome: EngineOutcome }>> {
  if (!claimed.length) return [];
  const trx = batchWrites(outer, ['events', 'engineState']);
  // The 7-day limit counts what other workers handed over: their batches' customers wait for their commits.
  await lockContactsOf(trx, claimed);
  const reads = await batchReads(trx, claimed, earliestOf(claimed));
  const outcomes = await decide(trx, claimed, reads);
  await flushEngineState(trx);
  await flushEvents(trx);
  return claimed.map((debt, i) => ({ debt, outcome: outcomes[i]! }));
}

/** The one-at-a-time form of a batch change: the worker falls back to it when a batch fails. */
function oneAtATime(applyBatch: NonNullable<TimedChange['applyBatch']>): TimedChange['applyOne'] {
  return async (trx, clock, tenantIds) => {
    const { outcomes, afterCommit } = await applyBatch(trx, clock, tenantIds, 1);
    const [first] = outcomes;
    if (!first) return { kind: 'none' };
    return first.kind === 'made' && afterCommit ? { ...first, afterCommit } : first;
  };
}

/** The engine's change kinds, given its channels. */
export function engineChanges(deps: EngineDeps): TimedChange[] {
  const intakeBatch: TimedChange['applyBatch'] = async (trx, clock, tenantIds, limit): Promise<BatchOutcome> => {
    const claimed = await claim(trx, clock, intakeDues(trx, tenantIds), limit);
    if (!claimed.length) return { outcomes: [] };
    const reads = await batchReads(trx, claimed, earliestOf(claimed));
    const batched = batchWrites(trx, ['events']);
    const outcomes = await analyseDebts(
      batched,
      claimed.map((debt) => ({ debt, now: debt.engine_now })),
      reads,
    );
    await flushEvents(batched);
    return { outcomes: claimed.map((debt, i) => made(debt, outcomes[i]!)) };
  };
  const intake: TimedChange = {
    name: 'debt_taken_in',
    applyBatch: intakeBatch,
    applyOne: oneAtATime(intakeBatch),
    oldestDue: (trx, clock, tenantIds) => oldestDueOf(intakeDues(trx, tenantIds), clock),
  };

  const stepBatch: TimedChange['applyBatch'] = async (trx, clock, tenantIds, limit): Promise<BatchOutcome> => {
    const claimed = await claim(trx, clock, [dueSteps(trx, clock, tenantIds)], limit);
    const decided = await inBatch(trx, claimed, (batched, debts, reads) =>
      runSteps(
        batched,
        debts.map((debt) => ({ debt, now: debt.engine_now })),
        deps.links,
        reads,
        deps.leaseSeconds,
      ),
    );
    const sends: Handover[] = [];
    for (const { outcome } of decided) {
      if (outcome.kind === 'send') sends.push({ communication: outcome.communication, to: outcome.to });
    }
    return {
      outcomes: decided.map(({ debt, outcome }) => made(debt, outcome)),
      ...(sends.length ? { afterCommit: () => handOverAll(deps, sends) } : {}),
    };
  };
  const step: TimedChange = {
    name: 'strategy_step',
    applyBatch: stepBatch,
    applyOne: oneAtATime(stepBatch),
    oldestDue: (trx, clock, tenantIds) => oldestDueOf([dueSteps(trx, clock, tenantIds)], clock),
  };

  const handOverBatch: TimedChange['applyBatch'] = async (trx, clock, tenantIds, limit): Promise<BatchOutcome> => {
    const claimed = (await claim(trx, clock, [dueHandOvers(trx, clock, tenantIds)], limit, ['c.id as hand_over_id'])) as Array<
      Claimed & { hand_over_id: string }
    >;
    if (!claimed.length) return { outcomes: [] };
    const batched = batchWrites(trx, ['events']);
    const prepared = await prepareHandOvers(
      batched,
      claimed.map((debt) => ({ debt, communicationId: debt.hand_over_id, now: debt.engine_now })),
      deps.links.portal.keys,
      deps.leaseSeconds,
    );
    await flushEvents(batched);
    const handed = new Set(prepared.map((p) => p.communication.id));
    return {
      outcomes: claimed.map((debt) =>
        made(debt, { kind: 'waiting', context: handed.has(debt.hand_over_id) ? `handing ${debt.hand_over_id} over` : `${debt.hand_over_id} waits` }),
      ),
      ...(prepared.length ? { afterCommit: () => handOverAll(deps, prepared) } : {}),
    };
  };
  const handOvers: TimedChange = {
    name: 'send_retried',
    applyBatch: handOverBatch,
    applyOne: oneAtATime(handOverBatch),
    oldestDue: (trx, clock, tenantIds) => oldestDueOf([dueHandOvers(trx, clock, tenantIds)], clock),
  };

  const reconcile: TimedChange = {
    name: 'send_reconciled',
    async applyOne(trx, clock, tenantIds): Promise<ChangeOutcome> {
      const [debt] = await claim(trx, clock, [dueReconcile(trx, clock, tenantIds, deps.reconcileAfterSeconds)], 1);
      if (!debt) return { kind: 'none' };
      const before = new Date(debt.engine_now.getTime() - deps.reconcileAfterSeconds * 1000);
      const row = await unsettledOf(trx, debt.tenant_id, debt.id, before, debt.engine_now);
      if (!row) return { kind: 'skipped', object: debt.id };
      const provider = row.delivery_method === 'portal' ? undefined : deps.channels[row.delivery_method];
      const answer = provider ? await provider.reconcile({ communicationId: row.id, attemptedAt: row.handed_at ?? row.sending_at! }) : null;
      const decision = reconcileDecision(row, provider?.name ?? null, answer, debt.engine_now);
      await applyReconciliation(trx, debt, row, decision);
      return { kind: 'made', object: debt.id, tenant: debt.tenant_id, context: decision.context };
    },
    oldestDue: (trx, clock, tenantIds) => oldestDueOf([dueReconcile(trx, clock, tenantIds, deps.reconcileAfterSeconds)], clock),
  };

  return [intake, step, promiseReminders(deps), handOvers, reconcile];
}
