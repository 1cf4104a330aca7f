/**
 * Balance items made when the money moves (docs/api.md section 14), payouts as ranges of them.
 * - `balance_items`: a payment's success writes its `payment` item (with its fee) and a refund its
 *   `refund` item, in the transaction of the payment change. An item no longer names its payout:
 *   the payouts of an organisation and currency (its payout account) own consecutive ranges of the
 *   account's items in `seq` order. Index `balance_items_account` (organisation, currency, seq,
 *   with the summed columns) serves a run's one aggregate and a payout's item list.
 * - `payouts.first_item_seq`, `last_item_seq`: the payout's items are the account's items with
 *   `seq` between the two (inclusive).
 * - `payout_accounts.items_through`: the `seq` of the account's last item in a payout (0: none);
 *   the next run takes the account's items after it.
 * Existing data: each old payout's items (made by one run of its account, under the account's row
 * lock, so no other payout of the account has an item between them) become its range; then every
 * succeeded payment without a `payment` item gets one (its fee by its organisation's settings now,
 * the defaults when none, as the next run would have taken them) and every refund not yet itemised
 * a `refund` item, all after the account's last payout. `down` gives the items their payout back
 * and drops the items in no payout (the old runs make them again).
 */
import type { Knex } from 'knex';

/** The platform fee as migration 035's runs computed it: organisation settings over the defaults (150 bp, minimum 20). */
const FEE = `least(p.amount, greatest(coalesce((o.configurations->'payouts'->>'fee_minimum')::bigint, 20),
  (p.amount * coalesce((o.configurations->'payouts'->>'fee_basis_points')::bigint, 150) + 5000) / 10000))`;
const ITEM_ID = `'bi_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)`;
const SUCCEEDED = `('succeeded', 'partially_refunded', 'refunded')`;

export async function up(knex: Knex): Promise<void> {
  // Nothing writes items or payouts while the ranges are drawn.
  await knex.raw('LOCK TABLE payouts, balance_items, payout_accounts IN EXCLUSIVE MODE');
  await knex.raw('ALTER TABLE payouts ADD COLUMN first_item_seq bigint, ADD COLUMN last_item_seq bigint');
  await knex.raw('ALTER TABLE payout_accounts ADD COLUMN items_through bigint NOT NULL DEFAULT 0');
  await knex.raw(`
    UPDATE payouts p SET first_item_seq = r.lo, last_item_seq = r.hi
    FROM (SELECT payout_id, min(seq) AS lo, max(seq) AS hi FROM balance_items GROUP BY payout_id) r
    WHERE r.payout_id = p.id`);
  // A payout without items (none was ever made) owns the empty range.
  await knex.raw('UPDATE payouts SET first_item_seq = 1, last_item_seq = 0 WHERE first_item_seq IS NULL');
  await knex.raw('ALTER TABLE payouts ALTER COLUMN first_item_seq SET NOT NULL, ALTER COLUMN last_item_seq SET NOT NULL');
  await knex.raw('CREATE INDEX balance_items_account ON balance_items (organisation_id, currency, seq) INCLUDE (type, amount, fee)');
  const { rows } = await knex.raw(`
    SELECT count(*)::int AS n FROM payouts p JOIN balance_items b
      ON b.organisation_id = p.organisation_id AND b.currency = p.currency AND b.seq BETWEEN p.first_item_seq AND p.last_item_seq
    WHERE b.payout_id <> p.id`);
  if (rows[0].n !== 0) throw new Error(`051_balance_ledger: ${rows[0].n} balance items lie inside another payout's range`);
  await knex.raw(`
    UPDATE payout_accounts a SET items_through = r.hi
    FROM (SELECT organisation_id, currency, max(last_item_seq) AS hi FROM payouts GROUP BY organisation_id, currency) r
    WHERE r.organisation_id = a.organisation_id AND r.currency = a.currency`);
  await knex.raw('DROP INDEX balance_items_payout');
  await knex.raw('ALTER TABLE balance_items DROP COLUMN payout_id');
  await knex.raw(`
    INSERT INTO balance_items (id, tenant_id, organisation_id, currency, type, amount, fee, net, payment_id, debt_id)
    SELECT ${ITEM_ID}, p.tenant_id, d.organisation_id, p.currency, 'payment', p.amount, f.fee, p.amount - f.fee, p.id, p.debt_id
    FROM payments p JOIN debts d ON d.id = p.debt_id JOIN organisations o ON o.id = d.organisation_id
    CROSS JOIN LATERAL (SELECT ${FEE} AS fee) f
    WHERE p.status IN ${SUCCEEDED}
      AND NOT EXISTS (SELECT 1 FROM balance_items b WHERE b.type = 'payment' AND b.payment_id = p.id)
    ORDER BY p.seq`);
  await knex.raw(`
    INSERT INTO balance_items (id, tenant_id, organisation_id, currency, type, amount, fee, net, payment_id, debt_id)
    SELECT ${ITEM_ID}, p.tenant_id, d.organisation_id, p.currency, 'refund', -r.due, 0, -r.due, p.id, p.debt_id
    FROM payments p JOIN debts d ON d.id = p.debt_id
    CROSS JOIN LATERAL (SELECT p.amount_refunded + coalesce((SELECT sum(b.amount) FROM balance_items b WHERE b.type = 'refund' AND b.payment_id = p.id), 0) AS due) r
    WHERE p.amount_refunded > 0 AND r.due > 0
    ORDER BY p.seq`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('LOCK TABLE payouts, balance_items, payout_accounts IN EXCLUSIVE MODE');
  await knex.raw('ALTER TABLE balance_items ADD COLUMN payout_id text');
  // Items are immutable (a statement trigger refuses UPDATE): rewritten as a new table would be
  // heavier than lifting the trigger for this one statement.
  await knex.raw('ALTER TABLE balance_items DISABLE TRIGGER balance_items_immutable');
  await knex.raw(`
    UPDATE balance_items b SET payout_id = p.id FROM payouts p
    WHERE b.organisation_id = p.organisation_id AND b.currency = p.currency AND b.seq BETWEEN p.first_item_seq AND p.last_item_seq`);
  await knex.raw('ALTER TABLE balance_items ENABLE TRIGGER balance_items_immutable');
  await knex.raw('DELETE FROM balance_items WHERE payout_id IS NULL');
  await knex.raw('ALTER TABLE balance_items ALTER COLUMN payout_id SET NOT NULL');
  await knex.raw('CREATE INDEX balance_items_payout ON balance_items (payout_id, seq)');
  await knex.raw('DROP INDEX balance_items_account');
  await knex.raw('ALTER TABLE payout_accounts DROP COLUMN items_through');
  await knex.raw('ALTER TABLE payouts DROP COLUMN first_item_seq, DROP COLUMN last_item_seq');
}
