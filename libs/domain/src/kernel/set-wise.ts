/**
 * One `UPDATE … FROM (VALUES …)` for many rows of a table (the collection engine's batches,
 * docs/api.md section 13): each row gives `id`, `tenant_id` and the same further columns, written
 * where both match.
 */
import type { Knex } from '@dms/db';

/**
 * Updates `rows` of `table` in one statement, setting `extra` SQL assignments too.
 * @param types the SQL type of every column given (`id` and `tenant_id` are text)
 * @returns the updated rows by id
 */
export async function updateFromValues<R extends { id: string }>(
  trx: Knex.Transaction,
  table: string,
  types: Readonly<Record<string, string>>,
  rows: ReadonlyArray<Record<string, unknown>>,
  extra = '',
): Promise<Map<string, R>> {
  const out = new Map<string, R>();
  if (!rows.length) return out;
  const columns = Object.keys(rows[0]!);
  const typeOf = (c: string) => (c === 'id' || c === 'tenant_id' ? 'text' : types[c]);
  const tuple = `(${columns.map((c) => `?::${typeOf(c)}`).join(', ')})`;
  const sets = columns.filter((c) => c !== 'id' && c !== 'tenant_id').map((c) => `${c} = v.${c}`);
  const { rows: updated } = await trx.raw<{ rows: R[] }>(
    `UPDATE ${table} AS t SET ${[...sets, ...(extra ? [extra] : [])].join(', ')}
       FROM (VALUES ${rows.map(() => tuple).join(', ')}) AS v(${columns.join(', ')})
      WHERE t.id = v.id AND t.tenant_id = v.tenant_id
      RETURNING t.*`,
    rows.flatMap((r) => columns.map((c) => r[c] ?? null)) as Knex.RawBinding[],
  );
  for (const r of updated) out.set(r.id, r);
  return out;
}

/** Groups `items` by the set of keys `keysOf` gives (one statement per group). */
export function bySignature<T>(items: readonly T[], keysOf: (t: T) => string[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const sig = keysOf(item).sort().join(',');
    groups.set(sig, [...(groups.get(sig) ?? []), item]);
  }
  return [...groups.values()];
}
