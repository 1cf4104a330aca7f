/**
 * The reconciliation file of a payout (docs/api.md section 14, `GET /payouts/{id}/items.csv`):
 * RFC 4180 CSV written by csv-stringify (CRLF line ends, fields quoted when they hold a comma, a
 * quote or a line break; a string that a spreadsheet would run as a formula neutralised, as every
 * CSV of the API: ../../http/csv.ts), a header row, then one row per balance item, oldest first.
 */
import { stringify } from 'csv-stringify/sync';
import { csvOptions } from '../../http/csv.js';
import type { ReconciliationLine } from '@dms/domain/payouts';

/** The columns, in order. */
export const RECONCILIATION_COLUMNS = [
  'item',
  'type',
  'payment',
  'debt',
  'customer_reference',
  'currency',
  'gross',
  'fee',
  'net',
  'created_at',
] as const satisfies readonly (keyof ReconciliationLine)[];

/** The file's text for `lines`. */
export function reconciliationCsv(lines: ReconciliationLine[]): string {
  return stringify(lines, csvOptions({ header: true, columns: [...RECONCILIATION_COLUMNS], record_delimiter: '\r\n', cast: { number: String } }));
}
