/**
 * The total of a search (docs/api.md section 4, "Search totals"): the number of matches, counted
 * up to a cap. Past the cap the answer is the cap and says so, as Elasticsearch's
 * `track_total_hits` does (`hits.total.relation`): `X-Total-Count: <cap>` with
 * `X-Total-Count-Relation: gte`, else the exact count with `eq`.
 *
 * Why a cap: a page of a search is one ordered index range of `limit + 1` rows at any size, but an
 * exact `count(*)` reads every match (383,562 index entries, 58 ms, for a broad query over a
 * million debts). Counting through `LIMIT cap + 1` bounds that work by the cap, whatever the
 * tenant's size; lists keep their exact O(1) maintained counters.
 */
import type { Knex } from '@dms/db';

/** Response header saying whether `X-Total-Count` is exact (`eq`) or a lower bound (`gte`). */
export const TOTAL_RELATION_HEADER = 'X-Total-Count-Relation';

/** Default of `SEARCH_TOTAL_CAP`: matches counted exactly per search (Elasticsearch's default too). */
export const DEFAULT_SEARCH_TOTAL_CAP = 10_000;

/** `eq`: the total is the exact number of matches; `gte`: at least that many match. */
export type TotalRelation = 'eq' | 'gte';

/** A search's total and how it relates to the true number of matches. */
export interface SearchTotal {
  total: number;
  relation: TotalRelation;
}

/**
 * `SELECT count(*) FROM (SELECT 1 FROM <matches> LIMIT cap + 1) matches`: stops after `cap + 1`
 * rows, so its cost is bounded by the cap (the extra row tells "more than the cap" apart from
 * "exactly the cap").
 * @param db the request's database handle (pool or transaction)
 * @param matches the tenant-scoped, search-narrowed rows (its select list and order are dropped)
 * @param cap matches counted exactly, a whole number >= 1
 * @returns `{total: n, relation: 'eq'}` for n <= cap matches, else `{total: cap, relation: 'gte'}`
 */
export async function countMatches(db: Knex | Knex.Transaction, matches: Knex.QueryBuilder, cap: number): Promise<SearchTotal> {
  const capped = matches
    .clone()
    .clearSelect()
    .clearOrder()
    .select(db.raw('1'))
    .limit(cap + 1);
  const row = (await db.from(capped.as('matches')).count({ n: '*' }).first()) as { n: number | string } | undefined;
  const n = Number(row?.n ?? 0);
  return n > cap ? { total: cap, relation: 'gte' } : { total: n, relation: 'eq' };
}
