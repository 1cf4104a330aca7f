/**
 * The kinds of searchable field: which operators each allows, how its value is read, and the
 * parameterised SQL condition it becomes. Values only ever reach SQL as bindings (`?`), column
 * names only as identifiers (`??`) from the registries, never from the query.
 */
import type { Knex } from '@dms/db';
import type { Operator } from './lexer.js';

/** A value that does not fit its field; the compiler adds the position. */
export class SearchValueError extends Error {}

/** The operators a field declares; `=` is read as `:` before fields see it. */
export type FieldOperator = Exclude<Operator, '='>;

/** One searchable field: allowed operators, and how a `field op value` term filters the rows. */
export interface SearchField {
  operators: readonly FieldOperator[];
  /** What the value must look like, for error messages (e.g. "an integer"). */
  expects: string;
  /** True when the field takes a key, as `metadata['key']`. */
  keyed?: boolean;
  /**
   * Adds the term's condition to `q`.
   * @param key the key of a keyed field
   * @throws SearchValueError when `value` does not fit the field
   */
  apply(q: Knex.QueryBuilder, op: FieldOperator, value: string, key?: string): void;
}

const EQUALITY: readonly FieldOperator[] = [':'];
const ORDERED: readonly FieldOperator[] = [':', '>', '>=', '<', '<='];
const SQL_OPERATOR: Record<Exclude<FieldOperator, ':'>, string> = { '>': '>', '>=': '>=', '<': '<', '<=': '<=' };

/** Exact, case-sensitive equality with a text column. */
export function exactText(column: string): SearchField {
  return { operators: EQUALITY, expects: 'a text value, matched exactly', apply: (q, _op, value) => void q.where(column, value) };
}

/** Membership of a value in a `text[]` column. */
export function arrayContains(column: string): SearchField {
  return { operators: EQUALITY, expects: 'a value the list contains', apply: (q, _op, value) => void q.whereRaw('?? @> ARRAY[?]::text[]', [column, value]) };
}

/** Escapes LIKE wildcards so the value matches literally (backslash is PostgreSQL's default ESCAPE). */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Case-insensitive substring match on a text column (`ILIKE '%value%'`, wildcards escaped). */
export function containsText(column: string): SearchField {
  return {
    operators: EQUALITY,
    expects: 'text contained, case-insensitively',
    apply: (q, _op, value) => void q.whereRaw('?? ILIKE ?', [column, `%${escapeLike(value)}%`]),
  };
}

/**
 * Case-insensitive equality with any visible e-mail contact detail (docs/api.md section 10) of
 * the customer whose id is in `customerIdColumn` (`customers.id` for customers,
 * `debts.customer_id` for a debt's `customer.email`). The addresses are found through the partial
 * index `contact_details_email` on `lower(value)` (migration 015), whose predicate the subquery
 * repeats so the planner can use it.
 *
 * The matching ids are collected first (`id = ANY(ARRAY(subquery))`, run once): the planner has no
 * statistics for the array expression and would otherwise walk the whole list in page order
 * filtering every row, while an address matches a handful of customers. The outer query still
 * carries the tenant scope, so only the tenant's rows are returned.
 */
export function emailOf(customerIdColumn: string): SearchField {
  return {
    operators: EQUALITY,
    expects: 'an e-mail address, case-insensitive',
    apply: (q, _op, value) =>
      void q.whereRaw(
        "?? = ANY(ARRAY(SELECT email_match.customer_id FROM customer_contact_details AS email_match WHERE email_match.type = 'email' AND email_match.status <> 'deleted' AND lower(email_match.value) = lower(?)))",
        [customerIdColumn, value],
      ),
  };
}

/**
 * Exact equality with a column of any related row that references the searched row
 * (`payment_plan.status` of debts, docs/api.md section 10: debts with a plan in that status), as
 * `EXISTS (SELECT 1 FROM related WHERE related.fk = outer.id AND related.tenant_id =
 * outer.tenant_id AND related.column = ?)`. The tenant equality lets the planner start from the
 * related rows through an index on `(tenant_id, column, fk)` when they are few.
 * @param outer the searched table (e.g. `debts`); `related.column` e.g. `payment_plans.status`
 */
export function relatedText(outer: string, related: { table: string; foreignKey: string; column: string }): SearchField {
  const at = (c: string) => `related_match.${c}`;
  return {
    operators: EQUALITY,
    expects: 'a text value, matched exactly',
    apply: (q, _op, value) =>
      void q.whereRaw('EXISTS (SELECT 1 FROM ?? AS related_match WHERE ?? = ?? AND ?? = ?? AND ?? = ?)', [
        related.table,
        at(related.foreignKey),
        `${outer}.id`,
        at('tenant_id'),
        `${outer}.tenant_id`,
        at(related.column),
        value,
      ]),
  };
}

/**
 * Equality of one key of a `metadata` JSON column (`metadata['key']:value`, docs/api.md section
 * 10), as containment `metadata @> {"key": "value"}`, which the GIN `jsonb_path_ops` index of
 * migration 017 serves. Key and value reach SQL only inside the one bound JSON document.
 */
export function metadataEntry(column: string): SearchField {
  return {
    operators: EQUALITY,
    expects: 'a text value, matched exactly',
    keyed: true,
    apply: (q, _op, value, key) => void q.whereRaw('?? @> ?::jsonb', [column, JSON.stringify({ [key!]: value })]),
  };
}

/** Integer comparison (amounts in minor units). */
export function integer(column: string): SearchField {
  return {
    operators: ORDERED,
    expects: 'an integer (minor units)',
    apply: (q, op, value) => {
      if (!/^-?\d{1,15}$/.test(value)) throw new SearchValueError(`Expected an integer but found '${value}'`);
      const n = Number(value);
      if (op === ':') q.where(column, n);
      else q.where(column, SQL_OPERATOR[op], n);
    },
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** True when y-m-d names a real calendar day (rejects 2026-02-30). */
function realDay(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d);
}

/**
 * Reads an RFC 3339 timestamp or a YYYY-MM-DD date.
 * @returns for a timestamp, the instant; for a date, the UTC day as `[start, end)`
 */
function readTime(value: string): { start: Date; end?: Date } {
  const date = DATE.exec(value);
  if (date && realDay(date[1]!, date[2]!, date[3]!)) {
    const start = new Date(`${value}T00:00:00Z`);
    return { start, end: new Date(start.getTime() + 86_400_000) };
  }
  const ts = RFC3339.exec(value);
  if (ts && realDay(ts[1]!, ts[2]!, ts[3]!) && Number(ts[4]) < 24 && Number(ts[5]) < 60 && Number(ts[6]) < 61) {
    const t = new Date(value);
    if (!Number.isNaN(t.getTime())) return { start: t };
  }
  throw new SearchValueError(`Expected an RFC 3339 timestamp or a YYYY-MM-DD date but found '${value}'`);
}

/**
 * Time comparison. A date stands for its whole UTC day: `:D` is within the day, `>D` after it,
 * `>=D` from its start, `<D` before it, `<=D` up to its end.
 */
export function timestamp(column: string): SearchField {
  return {
    operators: ORDERED,
    expects: 'an RFC 3339 timestamp or a YYYY-MM-DD date',
    apply: (q, op, value) => {
      const { start, end } = readTime(value);
      if (!end) {
        if (op === ':') q.where(column, start);
        else q.where(column, SQL_OPERATOR[op], start);
        return;
      }
      switch (op) {
        case ':':
          q.where(column, '>=', start).where(column, '<', end);
          break;
        case '>':
          q.where(column, '>=', end);
          break;
        case '>=':
          q.where(column, '>=', start);
          break;
        case '<':
          q.where(column, '<', start);
          break;
        case '<=':
          q.where(column, '<', end);
          break;
      }
    },
  };
}
