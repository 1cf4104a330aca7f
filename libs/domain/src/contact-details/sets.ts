/**
 * A set of contact details given as a whole (`contact_details` on a customer's create or update,
 * docs/api.md section 10, and on an organisation's, section 15): the rules both owners share.
 * Entries are named `contact_details[i]` in errors; within one array the last primary entry of a
 * type wins; on update an entry equal to a visible detail (same type and normalised value) keeps
 * that detail (and its id), the visible details matched by no entry leave the set, and the other
 * entries are created.
 */
import type { StoredValue } from './values.js';

/** The name of entry `i` in errors (`contact_details[2]`). */
export const detailParam = (i: number): string => `contact_details[${i}]`;

/** The entries with `primary` kept only on the last primary entry of each type (`primary` then always set). */
export function lastPrimaryWins<T extends { type: string; primary?: boolean }>(list: readonly T[]): Array<T & { primary: boolean }> {
  const last = new Map<string, number>();
  list.forEach((c, i) => c.primary && last.set(c.type, i));
  return list.map((c, i) => ({ ...c, primary: last.get(c.type) === i }));
}

/** The comparable stored value of a detail of `type` (its text, or its address as JSON). */
export const detailKey = (type: string, stored: { value: string | null; address: unknown } | StoredValue): string =>
  `${type}\u0000${stored.value ?? JSON.stringify(stored.address)}`;

/**
 * Matches the wanted entries (by key, in order) to the visible rows: each row serves at most one entry.
 * @param keys the key of each wanted entry (`detailKey`)
 * @param rows the visible details, oldest first
 * @returns `kept[i]`: the row entry `i` keeps (undefined: create it); `unmatched`: the rows to delete
 */
export function matchDetails<Row extends { type: string; value: string | null; address: unknown }>(
  keys: readonly string[],
  rows: readonly Row[],
): { kept: Array<Row | undefined>; unmatched: Row[] } {
  const free = new Map<string, Row[]>();
  for (const row of rows) {
    const k = detailKey(row.type, row);
    free.set(k, [...(free.get(k) ?? []), row]);
  }
  const kept = keys.map((k) => free.get(k)?.shift());
  return { kept, unmatched: [...free.values()].flat() };
}

/** The indexes of the entries kept non-primary first: demotions before promotions, so the one-primary-per-type index never sees two at once. */
export function demotionsFirst(wanted: readonly { primary: boolean }[]): number[] {
  return wanted.map((_, i) => i).sort((a, b) => Number(wanted[a]!.primary) - Number(wanted[b]!.primary));
}
