/**
 * Plans and pay-later promises agreed on the portal (docs/api.md section 18 "Plans with a saved
 * card", "Pay later"): the offers of the customer's debt (offers.ts over the stored options, the
 * tenant's today and the latest statement), the checkout that saves a method (`payment_setups`:
 * what was chosen, under the provider's checkout reference; nothing is charged at checkout, as
 * Stripe's setup mode / SetupIntent), and its verified outcome: a success with a saved method
 * makes the plan through the API's own `createPlan` (`payment_plan.created`) or the promise
 * (`payment.promised`), whodunnit `customer:<id>`, metadata `source: portal`, in one transaction
 * with the setup's completion; a failure makes nothing. Amounts in minor units.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { debtsResource } from '../debts/resource.js';
import { organisationsResource } from '../organisations/resource.js';
import { disposableIncomeShare } from '../organisations/portal-settings.js';
import { DEBT_MACHINE } from '../debts/states.js';
import { createPlan } from '../debts/plans.js';
import { lockDebt } from '../debts/moves.js';
import { debtAffordability } from '../income-and-expenditure/store.js';
import { tenantRows } from '../kernel/scoped.js';
import type { Frequency } from '../payment-plans/schedule.js';
import type { OfferPolicy } from '../payment-plans/offers.js';
import { effectiveOptions, portalOffers, type PortalOffer } from './offers.js';
import { insertPromise } from './promises.js';
import { SETUP_MACHINE } from './states.js';

/** The offers of one of the customer's debts. */
export interface DebtOffers {
  debtId: string;
  currency: string;
  balance: number;
  /** The tenant's today, `YYYY-MM-DD`. */
  today: string;
  options: OfferPolicy;
  offers: PortalOffer[];
  /** Whether the debt's status lets a plan be agreed, and lets it be paid (a promise). */
  canPlan: boolean;
  canPay: boolean;
}

/** The offers of the customer's debt `debtId`, or undefined when it is not theirs. */
export async function debtOffers(db: Knex, tenantId: string, customerId: string, debtId: string): Promise<DebtOffers | undefined> {
  const row = await tenantRows(db, debtsResource, tenantId)
    .join(
      tenantRows(db, organisationsResource, tenantId).select('id', 'payment_options_configuration', 'configurations').as('o'),
      'o.id',
      'debts.organisation_id',
    )
    .where({ 'debts.id': debtId, 'debts.customer_id': customerId })
    .whereNot('debts.status', 'deleted')
    .first<
      | {
          amount_remaining: number;
          currency: string;
          status: string;
          debt_configurations: { payment_options?: OfferPolicy } | null;
          options: OfferPolicy | null;
          org_configurations: { portal?: { disposable_income_share?: number } } | null;
          today: string;
        }
      | undefined
    >(
      'debts.amount_remaining',
      'debts.currency',
      'debts.status',
      'debts.configurations as debt_configurations',
      'o.payment_options_configuration as options',
      'o.configurations as org_configurations',
      db.raw(`(tenant_now(debts.tenant_id) AT TIME ZONE 'UTC')::date::text AS today`),
    );
  if (!row) return undefined;
  const options = effectiveOptions(row.options, row.debt_configurations?.payment_options);
  const affordability = await debtAffordability(db, tenantId, debtId, disposableIncomeShare(row.org_configurations?.portal));
  const balance = Number(row.amount_remaining);
  return {
    debtId,
    currency: row.currency,
    balance,
    today: row.today,
    options,
    offers: portalOffers(balance, options, row.today, affordability?.cap),
    canPlan: DEBT_MACHINE.transition(row.status as never, 'plan').ok,
    canPay: DEBT_MACHINE.transition(row.status as never, 'pay').ok,
  };
}

/** What the customer chose: a plan's terms, or a pay-later date. */
export type SetupTerms = { kind: 'plan'; frequency: Frequency; instalment_count: number; start_on: string } | { kind: 'promise'; pay_on: string };

/** A checkout that saves a method, as stored. */
export interface PaymentSetup {
  id: string;
  tenant_id: string;
  debt_id: string;
  customer_id: string;
  kind: 'plan' | 'promise';
  terms: SetupTerms;
  amount: number;
  currency: string;
  provider: string;
  checkout_reference: string;
  status: 'open' | 'completed' | 'failed';
  result_id: string | null;
}

/** What a setup checkout is for: `amount` is what the first charge will be (shown, not charged now). */
export interface SetupStart {
  tenantId: string;
  customerId: string;
  debtId: string;
  terms: SetupTerms;
  amount: number;
  currency: string;
  provider: string;
  reference: string;
}

/** Stores the open setup of a checkout (no event: nothing is agreed until the provider's outcome). */
export async function startSetup(db: Knex, s: SetupStart): Promise<PaymentSetup> {
  const [row] = await db('payment_setups')
    .insert({
      id: newId('pst'),
      tenant_id: s.tenantId,
      debt_id: s.debtId,
      customer_id: s.customerId,
      kind: s.terms.kind,
      terms: JSON.stringify(s.terms),
      amount: s.amount,
      currency: s.currency,
      provider: s.provider,
      checkout_reference: s.reference,
    })
    .returning('*');
  return normalise(row as PaymentSetup);
}

const normalise = (row: PaymentSetup): PaymentSetup => ({ ...row, amount: Number(row.amount) });

/** The setup of provider `provider`'s checkout `reference` in tenant `tenantId`, or undefined. */
export async function setupByReference(db: Knex | Knex.Transaction, tenantId: string, provider: string, reference: string): Promise<PaymentSetup | undefined> {
  const row = (await db('payment_setups').where({ tenant_id: tenantId, provider, checkout_reference: reference }).first()) as PaymentSetup | undefined;
  return row ? normalise(row) : undefined;
}

/** Moves the locked `setup` by `move` (SETUP_MACHINE), naming what it made. */
async function settleSetup(trx: Knex.Transaction, setup: PaymentSetup, move: 'complete' | 'fail', resultId: string | null): Promise<void> {
  const status = SETUP_MACHINE.require(setup.status, move);
  await trx('payment_setups').where({ id: setup.id }).update({ status, result_id: resultId, updated_at: trx.fn.now() });
}

/** A verified outcome of a setup checkout. */
export interface SetupOutcome {
  status: 'succeeded' | 'failed';
  tenantId: string;
  debtId: string;
  reference: string;
  savedMethod?: { reference: string; label: string };
}

/**
 * Records a setup's outcome once: a success with a saved method makes the plan or the promise;
 * a failure (or a success without a method) marks the setup failed and makes nothing.
 * @returns `recorded`, `duplicate` (already settled), `unknown` (no such setup), or `refused`
 *   (the debt no longer allows it: the setup is marked failed, nothing made)
 */
export async function recordSetupOutcome(db: Knex, provider: string, o: SetupOutcome): Promise<'recorded' | 'duplicate' | 'unknown' | 'refused'> {
  const found = await setupByReference(db, o.tenantId, provider, o.reference);
  if (!found || found.debt_id !== o.debtId) return 'unknown';
  try {
    return await db.transaction(async (trx) => {
      await lockDebt(trx, o.tenantId, o.debtId);
      const setup = normalise(await trx('payment_setups').where({ id: found.id }).forUpdate().first());
      if (setup.status !== 'open') return 'duplicate';
      const settle = (move: 'complete' | 'fail', resultId: string | null = null) => settleSetup(trx, setup, move, resultId);
      if (o.status !== 'succeeded' || !o.savedMethod) {
        await settle('fail');
        return 'recorded';
      }
      const method = { provider, reference: o.savedMethod.reference, label: o.savedMethod.label };
      const note = { whodunnit: `customer:${setup.customer_id}` };
      const terms = setup.terms;
      const made =
        terms.kind === 'plan'
          ? await createPlan(
              trx,
              o.tenantId,
              o.debtId,
              { frequency: terms.frequency, instalment_count: terms.instalment_count, start_on: terms.start_on, metadata: { source: 'portal' } },
              note,
              method,
            )
          : await insertPromise(trx, {
              tenantId: o.tenantId,
              debtId: o.debtId,
              customerId: setup.customer_id,
              amount: setup.amount,
              currency: setup.currency,
              payOn: terms.pay_on,
              method,
            });
      await settle('complete', made.id);
      return 'recorded';
    });
  } catch (err) {
    // The debt moved on (settled, disputed, a plan agreed elsewhere) between the choice and the outcome.
    if (!(err instanceof ApiError)) throw err;
    await db.transaction(async (trx) => {
      const setup = normalise(await trx('payment_setups').where({ id: found.id }).forUpdate().first());
      if (setup.status === 'open') await settleSetup(trx, setup, 'fail', null);
    });
    return 'refused';
  }
}
