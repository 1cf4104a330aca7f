/**
 * The seed's payouts (docs/api.md section 14): every organisation's collected money is paid out
 * through the domain's own run (`runPayoutsNow`), then operator moves leave payouts in every
 * status: the first `paid` (through `in_transit`), the second `failed` (its money returns to its
 * account, and a second run of that organisation makes a `pending` payout of it), the third
 * `in_transit`, the rest `pending`.
 */
import type { Knex } from '@dms/db';
import { tenantRows } from '@dms/domain/kernel';
import { movePayout, payoutsResource, runPayoutsNow, type Payout } from '@dms/domain/payouts';

/** `whodunnit` of the seed's payout moves, as an operator's would be. */
const OPERATOR = 'operator:seed';

/**
 * Runs the payouts of `organisationIds` and moves them as above.
 * @returns how many payouts were made, by status
 */
export async function seedPayouts(db: Knex, tenantId: string, organisationIds: readonly string[]): Promise<Record<string, number>> {
  const made: Payout[] = [];
  for (const id of organisationIds) made.push(...(await runPayoutsNow(db, tenantId, id)));
  const [paid, failed, inTransit] = made;
  if (paid) {
    await movePayout(db, tenantId, paid.id, { status: 'in_transit' }, OPERATOR);
    await movePayout(db, tenantId, paid.id, { status: 'paid', reason: 'BACS settlement confirmed' }, OPERATOR);
  }
  if (failed) {
    await movePayout(db, tenantId, failed.id, { status: 'failed', reason: 'Beneficiary account closed' }, OPERATOR);
    made.push(...(await runPayoutsNow(db, tenantId, failed.organisation_id)));
  }
  if (inTransit) await movePayout(db, tenantId, inTransit.id, { status: 'in_transit', reason: 'Sent to the bank' }, OPERATOR);
  const statuses: Record<string, number> = {};
  const rows = await tenantRows(db, payoutsResource, tenantId).select('payouts.status');
  for (const r of rows as { status: string }[]) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  return statuses;
}
