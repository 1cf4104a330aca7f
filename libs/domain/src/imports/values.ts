/**
 * Cell values of import files (docs/api.md section 16), read exactly: amounts as decimal pounds
 * (`104.49`, at most two decimals) to integer minor units by string arithmetic, never through a
 * floating-point number; dates strictly `YYYY-MM-DD` and timestamps strictly ISO 8601 with a real
 * calendar day; booleans `true`/`false` in any case. Each parser returns the value or a
 * `CellProblem` (code and message) that becomes the row's error naming the column.
 */

/** Why a cell was refused: a stable `code` and a message for people. */
export interface CellProblem {
  problem: true;
  code: string;
  message: string;
}

const problem = (code: string, message: string): CellProblem => ({ problem: true, code, message });

/** True when `v` is a refusal rather than a value. */
export function isProblem(v: unknown): v is CellProblem {
  return typeof v === 'object' && v !== null && (v as CellProblem).problem === true;
}

// Digits, an optional point and at most two decimals; a leading minus only where signs are allowed.
const DECIMAL = /^(-?)(\d{1,13})(?:\.(\d{1,2}))?$/;

/**
 * `104.49` → 10449 (minor units), exactly.
 * @param signed allow a leading `-` (transaction files report decreases as negative amounts)
 * @returns the amount, or `invalid_amount` for anything else: more than two decimals (`1.234`), a
 *   sign where none is allowed (`-5`), a currency symbol (`£10`), thousands separators, exponents,
 *   spaces, an empty cell
 */
export function parseAmount(text: string, signed = false): number | CellProblem {
  const m = DECIMAL.exec(text);
  if (!m || (m[1] && !signed)) {
    const what = signed ? 'a decimal amount such as 104.49 or -98.23' : 'a decimal amount such as 104.49 (no sign, no currency symbol)';
    return problem('invalid_amount', `'${text}' is not ${what}, with at most two decimals.`);
  }
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -minor : minor;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when year, month and day name a real calendar day (not 2023-02-30, not year 0). */
function realDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1]!;
}

/**
 * A calendar date, `YYYY-MM-DD` (ISO 8601 extended form) and a real day.
 * @returns the same text, or `invalid_date`
 */
export function parseDate(text: string): string | CellProblem {
  const m = DATE.exec(text);
  if (!m || !realDay(Number(m[1]), Number(m[2]), Number(m[3]))) return problem('invalid_date', `'${text}' is not a date in the form YYYY-MM-DD.`);
  return text;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,6})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$/;

/**
 * An ISO 8601 timestamp, `YYYY-MM-DDThh:mm:ss[.sss][Z|±hh:mm]`; without a zone it is read as UTC
 * (the file format's example, `2021-12-31T06:10:15.123`, has none).
 * @returns RFC 3339 text with its zone, or `invalid_timestamp`
 */
export function parseTimestamp(text: string): string | CellProblem {
  const m = TIMESTAMP.exec(text);
  if (!m || !realDay(Number(m[1]), Number(m[2]), Number(m[3]))) {
    return problem('invalid_timestamp', `'${text}' is not an ISO 8601 timestamp such as 2021-12-31T06:10:15.123Z.`);
  }
  return m[8] ? text : `${text}Z`;
}

/**
 * `true`/`false` (any case; the reference writes `True`); an empty cell is false.
 * @returns the boolean, or `invalid_boolean`
 */
export function parseBoolean(text: string): boolean | CellProblem {
  const t = text.toLowerCase();
  if (t === 'true') return true;
  if (t === 'false' || t === '') return false;
  return problem('invalid_boolean', `'${text}' is not true or false.`);
}

/**
 * A whole number of at most 9 digits (`placement_count`).
 * @returns the number, or `invalid_integer`
 */
export function parseCount(text: string): number | CellProblem {
  if (!/^\d{1,9}$/.test(text)) return problem('invalid_integer', `'${text}' is not a whole number.`);
  return Number(text);
}
