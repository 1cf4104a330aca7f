/**
 * When payout runs happen (docs/api.md sections 12 and 14): the worker's claim of one due account
 * (`FOR UPDATE SKIP LOCKED`, so each run happens once with several workers, and a worker killed
 * midway rolls back: the account is due again for the next check), and an operator's
 * `POST /operator/payouts/run` (one organisation now, due or not; or every due account of the
 * tenant). Each run is one transaction with its event.
 */
import type { Knex } from '@dms/db';
import { findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import { claimDueAccount, ensureAccounts, lockOrganisationAccounts, tenantNow } from './accounts.js';
import { runPayout } from './run.js';
import type { Payout, PayoutAccountRow } from './schemas.js';

/** Runs the locked `account` now (its tenant's moment plus the offset). */
async function runLocked(trx: Knex.Transaction, account: PayoutAccountRow, offsetSeconds: number): Promise<Payout | null> {
  return runPayout(trx, account, await tenantNow(trx, account.tenant_id, offsetSeconds));
}

/** What one claim did: nothing due, or the account run (with the payout made, if any). */
export type ClaimOutcome = { kind: 'none' } | { kind: 'ran'; tenant: string; account: string; payout: Payout | null };

/**
 * The worker's step, in `trx`: makes missing accounts, then claims and runs one due account.
 * @param tenantIds only these tenants (empty: all)
 * @param offsetSeconds the worker's clock offset (0 outside tests)
 */
export async function runOneDue(trx: Knex.Transaction, tenantIds: readonly string[], offsetSeconds = 0): Promise<ClaimOutcome> {
  await ensureAccounts(trx, { tenantIds }, offsetSeconds);
  const account = await claimDueAccount(trx, tenantIds, offsetSeconds);
  if (!account) return { kind: 'none' };
  return { kind: 'ran', tenant: account.tenant_id, account: account.id, payout: await runLocked(trx, account, offsetSeconds) };
}

/**
 * `POST /operator/payouts/run`: with `organisationId`, runs its accounts now (waiting for a run in
 * progress), due or not, in one transaction; without, every due account of the tenant, one
 * transaction each.
 * @returns the payouts made
 * @throws ApiError 404 `resource_missing` (param `organisation_id`)
 */
export async function runPayoutsNow(db: Knex, tenantId: string, organisationId?: string): Promise<Payout[]> {
  if (organisationId) {
    return db.transaction(async (trx) => {
      await findOwned(trx, organisationsResource, tenantId, organisationId, { param: 'organisation_id' });
      await ensureAccounts(trx, { organisationId });
      const made: Payout[] = [];
      for (const account of await lockOrganisationAccounts(trx, tenantId, organisationId)) {
        const payout = await runLocked(trx, account, 0);
        if (payout) made.push(payout);
      }
      return made;
    });
  }
  const made: Payout[] = [];
  for (;;) {
    const outcome = await db.transaction((trx) => runOneDue(trx, [tenantId]));
    if (outcome.kind === 'none') return made;
    if (outcome.payout) made.push(outcome.payout);
  }
}
