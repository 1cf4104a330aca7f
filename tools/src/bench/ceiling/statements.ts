/**
 * The SQL the API sends for the pages the bare ceiling server serves, copied from what Knex
 * builds for the API's list and search handlers (services/api/src/operations/lists.ts,
 * services/api/src/http/pagination.ts, libs/search/src/compiler.ts), placeholders and bindings included. A ceiling that ran
 * other SQL would measure another database cost: when the API's statements change (the search
 * total rule, for instance), change them here too (docs/api.md section 4).
 */

/** One statement: SQL text with `$n` placeholders and the values to bind. */
export interface Statement {
  /**
   * Name of the prepared statement (pg's `name`): prepared once per connection, as the API
   * prepares its list statements; none for a search, which the API sends unnamed (planned for its values).
   */
  name?: string;
  text: string;
  values: unknown[];
}

/** Rows a page fetches beyond `limit`, to know whether an older page exists. */
const EXTRA = 1;

/** Visible rows of a tenant's list, as libs/domain/src/kernel/scoped.ts narrows them. */
const VISIBLE: Record<'debts' | 'payments', { where: string; values: unknown[] }> = {
  debts: { where: `"debts"."tenant_id" = $1 and not "debts"."status" = $2`, values: ['deleted'] },
  payments: { where: `"payments"."tenant_id" = $1`, values: [] },
};

/** The cursor lookup of `after=<id>`: the cursor's `seq` within the same visible list. */
export function cursorSeq(table: 'debts' | 'payments', tenantId: string, id: string): Statement {
  const v = VISIBLE[table];
  const n = v.values.length + 2;
  return {
    name: `bare_${table}_cursor`,
    text: `select "${table}"."seq" from "${table}" where ${v.where} and "${table}"."id" = $${n} limit $${n + 1}`,
    values: [tenantId, ...v.values, id, 1],
  };
}

/** The keyset page of `limit + 1` rows, newest first, after `seq` when given. */
export function keysetPage(table: 'debts' | 'payments', tenantId: string, limit: number, afterSeq?: number): Statement {
  const v = VISIBLE[table];
  const n = v.values.length + 2;
  if (afterSeq === undefined) {
    return {
      name: `bare_${table}_first`,
      text: `select * from "${table}" where ${v.where} order by "${table}"."seq" desc limit $${n}`,
      values: [tenantId, ...v.values, limit + EXTRA],
    };
  }
  return {
    name: `bare_${table}_after`,
    text: `select * from "${table}" where ${v.where} and "${table}"."seq" < $${n} order by "${table}"."seq" desc limit $${n + 1}`,
    values: [tenantId, ...v.values, afterSeq, limit + EXTRA],
  };
}

/** `X-Total-Count` of a plain list: the sum of its counter shards. */
export function listTotal(tenantId: string, list: string): Statement {
  return {
    name: 'bare_list_total',
    text: `select sum("count") as "total" from "list_counters" where "tenant_id" = $1 and "list" = $2 and "parent_id" = $3`,
    values: [tenantId, list, ''],
  };
}

/**
 * The one search the benchmark sends, `status:<s> AND amount_remaining><n>` on debts: its keyset
 * page and its total, counted as the API counts it (search/total.ts: the matches up to `cap + 1`,
 * docs/api.md section 4, "Search totals"). Other queries return undefined (the bare server answers
 * 400): the ceiling has no search compiler.
 */
export function debtSearch(tenantId: string, query: string, limit: number, cap: number): { page: Statement; total: Statement } | undefined {
  const m = /^status:([a-z_]+) AND amount_remaining>(\d+)$/.exec(query);
  if (!m) return undefined;
  const where = `${VISIBLE.debts.where} and "debts"."status" = $3 and "debts"."amount_remaining" > $4`;
  const values = [tenantId, 'deleted', m[1], Number(m[2])];
  return {
    page: { text: `select * from "debts" where ${where} order by "debts"."seq" desc limit $5`, values: [...values, limit + EXTRA] },
    total: { text: `select count(*) as "n" from (select 1 from "debts" where ${where} limit $5) as "matches"`, values: [...values, cap + 1] },
  };
}
