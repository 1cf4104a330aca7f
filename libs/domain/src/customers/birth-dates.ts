/**
 * Dates of birth at rest (docs/api.md section 20, "Where personal data is stored"): sealed with the
 * personal-data box (kernel/personal-box.ts) in `customers.date_of_birth_encrypted`; the clear
 * `date_of_birth` column is left null by every write. Rows written before (migration
 * 101_sealed_birth_dates) are sealed by `sealLegacyBirthDates`, run at the API's and worker's start.
 */
import type { Knex } from '@dms/db';
import { openPersonal, sealPersonal } from '../kernel/personal-box.js';

/** The columns that store `date` (an ISO `YYYY-MM-DD` date, or null): sealed, the clear one null. */
export function birthDateColumns(date: string | null): { date_of_birth: null; date_of_birth_encrypted: string | null } {
  return { date_of_birth: null, date_of_birth_encrypted: sealPersonal(date) };
}

/**
 * A row's date of birth, `YYYY-MM-DD` or null: opened from the ciphertext, else a legacy clear value.
 * @throws SecretDecryptionError when the ciphertext cannot be opened with `SECRETS_KEY`
 */
export function birthDateOf(row: { date_of_birth?: string | null; date_of_birth_encrypted?: string | null }): string | null {
  return openPersonal(row.date_of_birth_encrypted, row.date_of_birth);
}

/**
 * Seals every clear date of birth left by rows written before encryption, `batch` rows per
 * transaction (locked, skipping rows another process is sealing), and clears it. Idempotent: a
 * second run, or one racing another process, finds nothing left to do.
 * @returns how many rows were sealed
 */
export async function sealLegacyBirthDates(db: Knex, batch = 500): Promise<number> {
  let sealed = 0;
  for (;;) {
    const done = await db.transaction(async (trx) => {
      const rows: { id: string; dob: string }[] = await trx('customers')
        .whereNotNull('date_of_birth')
        .orderBy('id')
        .limit(batch)
        .forUpdate()
        .skipLocked()
        .select('id', trx.raw(`to_char(date_of_birth, 'YYYY-MM-DD') AS dob`));
      for (const r of rows) await trx('customers').where({ id: r.id }).update(birthDateColumns(r.dob));
      return rows.length;
    });
    sealed += done;
    if (done < batch) return sealed;
  }
}
