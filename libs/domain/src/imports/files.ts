/**
 * The four file types of docs/api.md section 16 and their columns, as the public API's reference
 * pages give them ("Placement files", "Transaction files", "Arrangement files", "Closure files"),
 * and the check of a file's header against its type: every required column present, no column
 * twice, none unknown (columns named `extra_<key>` are kept as `metadata`).
 */

/** The kinds of file an import takes. */
export const IMPORT_TYPES = ['placement', 'transaction', 'arrangement', 'closure'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/** One column of a file type. */
export interface Column {
  name: string;
  required: boolean;
}

const cols = (required: string[], optional: string[]): Column[] => [
  ...required.map((name) => ({ name, required: true })),
  ...optional.map((name) => ({ name, required: false })),
];

/** The columns of each type, required first. */
export const COLUMNS: Readonly<Record<ImportType, readonly Column[]>> = {
  placement: cols(
    ['account_number', 'balance_total', 'first_name', 'last_name', 'dob', 'address1', 'city', 'postcode', 'country'],
    [
      'email',
      'mobile',
      'phone',
      'address2',
      'county',
      'company',
      'balance_principal',
      'balance_interest',
      'balance_fees',
      'monthly_recurring_bills',
      'last_invoice_date',
      'last_payment_date',
      'agreement_date',
      'default_date',
      'placement_count',
      'tags',
      'notes',
    ],
  ),
  transaction: cols(['account_number', 'transaction_at', 'amount', 'transaction_type', 'transaction_ref'], ['notes']),
  arrangement: cols(['account_number', 'amount', 'frequency', 'first_payment_date'], ['payment_method', 'is_cancelled']),
  closure: cols(['account_number'], ['reason', 'note']),
};

/** Prefix of the columns whose cells land in `metadata` (the key is what follows it). */
export const EXTRA_PREFIX = 'extra_';

/** A file refused whole: a stable `code` and a message naming what is wrong. */
export interface FileProblem {
  code: 'header_mismatch' | 'missing_column' | 'not_utf8' | 'not_csv' | 'empty_file' | 'unknown_organisation' | 'too_many_rows';
  message: string;
}

/**
 * Checks the header of a file of `type` (pure).
 * @returns undefined when it matches, else the problem: `missing_column` naming the required
 *   columns absent, `header_mismatch` naming a column twice or one the type does not have
 */
export function checkHeader(type: ImportType, header: readonly string[]): FileProblem | undefined {
  const known = new Set(COLUMNS[type].map((c) => c.name));
  const seen = new Set<string>();
  for (const name of header) {
    if (seen.has(name)) return { code: 'header_mismatch', message: `The header names column '${name}' twice.` };
    seen.add(name);
    if (!known.has(name) && !(name.startsWith(EXTRA_PREFIX) && name.length > EXTRA_PREFIX.length)) {
      return { code: 'header_mismatch', message: `Column '${name}' is not a column of a ${type} file (extra data goes in columns named extra_<key>).` };
    }
  }
  const missing = COLUMNS[type].filter((c) => c.required && !seen.has(c.name)).map((c) => c.name);
  if (missing.length) return { code: 'missing_column', message: `A ${type} file must have the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.` };
  return undefined;
}

/** The `extra_*` cells of a row as metadata (`extra_branch` → `branch`), empty cells left out. */
export function extraMetadata(cells: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(cells)) if (name.startsWith(EXTRA_PREFIX) && value !== '') out[name.slice(EXTRA_PREFIX.length)] = value;
  return out;
}
