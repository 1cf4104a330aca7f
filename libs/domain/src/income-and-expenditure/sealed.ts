/**
 * A statement's money groups at rest (docs/api.md section 20, "Where personal data is stored"):
 * the five groups, as one JSON object, sealed with the personal-data box (kernel/personal-box.ts)
 * in `income_and_expenditures.details_encrypted`; their clear columns are left null by every write.
 * The household counts and `disposable_income` stay in clear. Statements stored before (migration
 * 102_sealed_statement_details) are sealed by `sealLegacyStatements`, run at the worker's start.
 */
import type { Knex } from '@dms/db';
import { openPersonal, sealPersonal } from '../kernel/personal-box.js';
import { STATEMENT_GROUPS, type StatementGroup, type StoredStatement } from './statement.js';

const GROUPS = Object.keys(STATEMENT_GROUPS) as StatementGroup[];
const TABLE = 'income_and_expenditures';

/** The money groups of a statement (each an object of entries, monthly minor units). */
export type StatementDetails = Omit<StoredStatement, 'household'>;

/** The columns that store `details`: sealed, each clear group column null. */
export function sealedDetailsColumns(details: StatementDetails): Record<StatementGroup, null> & { details_encrypted: string } {
  const groups = Object.fromEntries(GROUPS.map((g) => [g, details[g]]));
  return { ...(Object.fromEntries(GROUPS.map((g) => [g, null])) as Record<StatementGroup, null>), details_encrypted: sealPersonal(JSON.stringify(groups))! };
}

/**
 * A row's money groups: opened from the ciphertext, else (a legacy row) its clear columns.
 * @throws SecretDecryptionError when the ciphertext cannot be opened with `SECRETS_KEY`
 */
export function detailsOf(row: { details_encrypted?: string | null } & { [G in StatementGroup]?: unknown }): StatementDetails {
  const opened = openPersonal(row.details_encrypted);
  if (opened !== null) return JSON.parse(opened) as StatementDetails;
  return Object.fromEntries(GROUPS.map((g) => [g, row[g]])) as StatementDetails;
}

/** `details` with every entry 0 a month, keys kept (what erasure leaves; docs/api.md section 20). */
export function clearedDetails(details: StatementDetails): StatementDetails {
  const zero = { amount: 0, frequency: 'monthly', monthly: 0 };
  return Object.fromEntries(GROUPS.map((g) => [g, Object.fromEntries(Object.keys(details[g] ?? {}).map((k) => [k, zero]))])) as StatementDetails;
}

/**
 * Seals again, in `trx`, the money groups of the statements `rows` selects (their `id` and
 * `details_encrypted`), as `change` makes them; rows without a ciphertext are left to their columns.
 */
export async function resealDetails(trx: Knex.Transaction, rows: Knex.QueryBuilder, change: (d: StatementDetails) => StatementDetails): Promise<void> {
  const found: { id: string; details_encrypted: string }[] = await rows
    .whereNotNull(`${TABLE}.details_encrypted`)
    .select(`${TABLE}.id`, `${TABLE}.details_encrypted`);
  for (const r of found)
    await trx(TABLE)
      .where({ id: r.id })
      .update(sealedDetailsColumns(change(detailsOf(r))));
}

/**
 * Seals the clear money groups of every statement stored before encryption, `batch` rows per
 * transaction (locked, skipping rows another process is sealing), and clears them. Idempotent.
 * @returns how many statements were sealed
 */
export async function sealLegacyStatements(db: Knex, batch = 200): Promise<number> {
  let sealed = 0;
  for (;;) {
    const done = await db.transaction(async (trx) => {
      const rows: Record<string, unknown>[] = await trx(TABLE)
        .whereNull('details_encrypted')
        .orderBy('id')
        .limit(batch)
        .forUpdate()
        .skipLocked()
        .select('id', ...GROUPS);
      for (const r of rows)
        await trx(TABLE)
          .where({ id: r.id })
          .update(sealedDetailsColumns(detailsOf(r)));
      return rows.length;
    });
    sealed += done;
    if (done < batch) return sealed;
  }
}
