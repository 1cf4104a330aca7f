/**
 * The one set of csv-stringify options every CSV file the API writes is made with (the payout's
 * reconciliation file `items.csv`, docs/api.md section 14; an import's `errors.csv`, section 16):
 * RFC 4180 text, and OWASP's defence against CSV (formula) injection, so a tenant's string such
 * as `=HYPERLINK(…)` is never run by the spreadsheet that opens the file.
 *
 * A string cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return (or the full-width
 * `＝ ＋ － ＠`) is written with a single quote before it (csv-stringify's `escape_formulas`) and
 * quoted: `'=1+1` → `"'=1+1"`. Only strings are: numbers the platform writes itself (amounts in
 * minor units such as a refund's `-100`, row numbers) stay numbers, as OWASP advises, since a
 * number is never a formula and a spreadsheet must still sum the column.
 */
import type { Options } from 'csv-stringify';

/** The first characters a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * `options` with the defence above added (any `cast` given for other types is kept).
 * @param options csv-stringify options of the file (columns, header, record delimiter)
 */
export function csvOptions(options: Options): Options {
  return {
    ...options,
    escape_formulas: true,
    cast: { ...options.cast, string: (value) => (FORMULA_START.test(value) ? { value, quoted: true } : value) },
  };
}
