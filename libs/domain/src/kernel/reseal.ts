/**
 * Re-sealing after a rotation of `SECRETS_KEY` (deploy/README.md, "Rotating keys"; docs/api.md
 * section 20, "Where personal data is stored"): every value sealed with a key other than the
 * current (first) one is opened and sealed again with the current one, so the old key can then be
 * removed from the list. `SEALED_COLUMNS` is the one list of columns that hold ciphertexts: personal
 * data (dates of birth, statements' money groups), stored idempotent responses, and the secrets of
 * OAuth clients, token signing keys and webhook endpoints (none of which is re-sealed elsewhere).
 * Run by the worker at start, after the legacy clear rows are sealed.
 */
import type { Knex } from '@dms/db';
import { SecretDecryptionError, type SecretBox } from '@dms/secrets';
import { personalDataBox } from './personal-box.js';

/** A column holding `v1.<key id>.…` ciphertexts (or null), and the columns naming one row. */
export interface SealedColumn {
  table: string;
  column: string;
  key: readonly string[];
}

/** Every column sealed with `SECRETS_KEY`. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'customers', column: 'date_of_birth_encrypted', key: ['id'] },
  { table: 'income_and_expenditures', column: 'details_encrypted', key: ['id'] },
  { table: 'idempotency_keys', column: 'response_body', key: ['tenant_id', 'client_id', 'key'] },
  { table: 'oauth_clients', column: 'secret_ciphertext', key: ['client_id'] },
  { table: 'signing_keys', column: 'private_jwk_ciphertext', key: ['kid'] },
  { table: 'webhook_endpoints', column: 'signing_secret_ciphertext', key: ['id'] },
  { table: 'webhook_endpoints', column: 'previous_signing_secret_ciphertext', key: ['id'] },
  { table: 'webhook_endpoints', column: 'oauth2_client_secret_ciphertext', key: ['id'] },
];

/**
 * A stored value sealed with a key `SECRETS_KEY` no longer lists: a configuration mistake (the old
 * key removed before every value was re-sealed), reported as the one line services print for a
 * bad setting (`config error: SECRETS_KEY: …`).
 */
export class SealedKeyMissingError extends Error {
  constructor(where: SealedColumn, keyId: string) {
    super(
      `config error: SECRETS_KEY: does not open ${where.table}.${where.column} (sealed with the key whose id is ${keyId}): ` +
        'list that key after the new one (SECRETS_KEY=new,old) until the worker has re-sealed every value, then remove it',
    );
    this.name = 'SealedKeyMissingError';
  }
}

/** The key id a `v1.<key id>.…` ciphertext names ('' when it is not one). */
function keyIdOf(ciphertext: string): string {
  return ciphertext.split('.')[1] ?? '';
}

/**
 * Seals again with the current key the values of `c` sealed with another, `batch` rows per
 * transaction (locked, skipping rows another worker is re-sealing). Idempotent.
 * @returns how many values were re-sealed
 * @throws SealedKeyMissingError when a value names a key `box` does not hold (nothing of its batch changed)
 */
export async function resealColumn(db: Knex, c: SealedColumn, box: SecretBox = personalDataBox(), batch = 200): Promise<number> {
  let resealed = 0;
  for (;;) {
    const done = await db.transaction(async (trx) => {
      const rows: Record<string, string>[] = await trx(c.table)
        .whereNotNull(c.column)
        .whereRaw('?? NOT LIKE ?', [c.column, `v1.${box.keyId}.%`])
        .orderBy([...c.key])
        .limit(batch)
        .forUpdate()
        .skipLocked()
        .select(...c.key, c.column);
      for (const r of rows) {
        let plain: string;
        try {
          plain = box.open(r[c.column]!);
        } catch (err) {
          if (err instanceof SecretDecryptionError) throw new SealedKeyMissingError(c, keyIdOf(r[c.column]!));
          throw err;
        }
        await trx(c.table)
          .where(Object.fromEntries(c.key.map((k) => [k, r[k]])))
          .update({ [c.column]: box.seal(plain) });
      }
      return rows.length;
    });
    resealed += done;
    if (done < batch) return resealed;
  }
}

/**
 * `resealColumn` for every column of `SEALED_COLUMNS` (tables a database does not have yet are
 * skipped).
 * @returns the count re-sealed per `table.column` (only those above 0)
 * @throws SealedKeyMissingError as `resealColumn`
 */
export async function resealAll(db: Knex, box: SecretBox = personalDataBox(), batch = 200): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const c of SEALED_COLUMNS) {
    if (!(await db.schema.hasColumn(c.table, c.column))) continue;
    const n = await resealColumn(db, c, box, batch);
    if (n) counts[`${c.table}.${c.column}`] = n;
  }
  return counts;
}
