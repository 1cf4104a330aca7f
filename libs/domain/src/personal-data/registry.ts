/**
 * Where personal data is stored (docs/api.md section 20, "Where personal data is stored"): the one
 * list of personal columns, read by the erasure and by its test. Two kinds:
 * - `owned`: a column of a row that belongs to the customer (its own row, its contact details, its
 *   communications, its income and expenditure statements): replaced outright, text by the
 *   marker, a date by null, a JSON object's string values by the marker (keys kept), a statement's
 *   entries zeroed (`cleared`: what the person earns and spends, each entry 0 a month, keys kept;
 *   the disposable income, the ledger's figure, stays; `sealed`: a value encrypted at rest,
 *   opened to find its copies, then set to null; `sealed_statement`: a statement's money groups
 *   encrypted at rest, opened, cleared as `cleared` does and sealed again);
 * - `copies`: a column that may hold copies of those values inside other text (stored events, and
 *   so webhook delivery bodies, which are rendered from them; a delivery's last error and its
 *   attempts' errors, which may echo a receiver's body; import rows and errors): each copy of a
 *   value is replaced by the marker, the rest kept; stored idempotent responses are sealed, so
 *   they are opened and removed whole when they concern the customer (stored-responses.ts);
 * - `statement events`: stored events whose object is a statement (`STATEMENT_EVENTS`): amounts
 *   cannot be found as copies of text, so the object's money groups are cleared as the row's are,
 *   and its group totals zeroed; `disposable_income` stays, as on the row.
 * Amounts, dates of the ledger, statuses and ids are not personal and stay.
 */

/** What replaces every personal value. */
export const ERASED = '[erased]';

/** How an owned column is erased. */
export type OwnedKind = 'text' | 'date' | 'json' | 'cleared' | 'sealed' | 'sealed_statement';

/** A column of a row that belongs to the customer. */
export interface OwnedColumn {
  table: 'customers' | 'customer_contact_details' | 'communications' | 'income_and_expenditures';
  column: string;
  kind: OwnedKind;
}

/** A column that may hold copies of personal values (`json`: jsonb; `text`: text, JSON or not). */
export interface CopyColumn {
  table: 'events' | 'webhook_deliveries' | 'webhook_delivery_attempts' | 'import_rows' | 'import_errors';
  column: string;
  kind: 'json' | 'text';
  /** The columns that name one row (its primary key). */
  key: readonly string[];
}

/** The money groups of a statement: what the person earns and spends, entry by entry. */
export const STATEMENT_DETAIL_GROUPS = ['income', 'fixed_costs', 'flexible_costs', 'priority_debts', 'other_debts'] as const;

/** Stored event types whose `data.object` is a statement, with its money groups and their totals. */
export const STATEMENT_EVENTS: readonly string[] = ['income_and_expenditure.created'];

/** Every personal column of a customer's own rows. */
export const OWNED_COLUMNS: readonly OwnedColumn[] = [
  { table: 'customers', column: 'first_name', kind: 'text' },
  { table: 'customers', column: 'last_name', kind: 'text' },
  { table: 'customers', column: 'full_name', kind: 'text' },
  { table: 'customers', column: 'date_of_birth', kind: 'date' },
  { table: 'customers', column: 'date_of_birth_encrypted', kind: 'sealed' },
  { table: 'customers', column: 'metadata', kind: 'json' },
  { table: 'customer_contact_details', column: 'value', kind: 'text' },
  { table: 'customer_contact_details', column: 'address', kind: 'json' },
  { table: 'customer_contact_details', column: 'metadata', kind: 'json' },
  { table: 'communications', column: 'subject', kind: 'text' },
  { table: 'communications', column: 'body', kind: 'text' },
  { table: 'communications', column: 'status_reason', kind: 'text' },
  { table: 'communications', column: 'metadata', kind: 'json' },
  ...STATEMENT_DETAIL_GROUPS.map((column) => ({
    table: 'income_and_expenditures' as const,
    column,
    kind: 'cleared' as const,
  })),
  { table: 'income_and_expenditures', column: 'details_encrypted', kind: 'sealed_statement' },
];

/** Every column that may hold copies of a customer's personal values. */
export const COPY_COLUMNS: readonly CopyColumn[] = [
  { table: 'events', column: 'data', kind: 'json', key: ['id'] },
  { table: 'webhook_deliveries', column: 'last_error', kind: 'text', key: ['id'] },
  { table: 'webhook_delivery_attempts', column: 'error', kind: 'text', key: ['delivery_id', 'attempt'] },
  { table: 'import_rows', column: 'cells', kind: 'json', key: ['import_id', 'row_number'] },
  { table: 'import_errors', column: 'message', kind: 'text', key: ['id'] },
];
