/**
 * Amounts of an income and expenditure statement (docs/api.md "Income and
 * expenditure"): each entry is entered as a figure in minor units and a frequency, and is held
 * per month. Weekly figures are multiplied by 52/12, fortnightly by 26/12, monthly ones kept;
 * the result is rounded half up to the minor unit with integer arithmetic (no float drift).
 */

/** How often an entered figure is paid or received. */
export type EntryFrequency = 'weekly' | 'fortnightly' | 'monthly';

/** The frequencies accepted, in the order a form lists them. */
export const ENTRY_FREQUENCIES: readonly EntryFrequency[] = ['weekly', 'fortnightly', 'monthly'];

/** An entry as the customer gave it: `amount` in minor units per `frequency`. */
export interface EnteredAmount {
  amount: number;
  frequency: EntryFrequency;
}

/** An entry as stored: the figure entered, its frequency and the monthly figure derived. */
export interface StoredAmount extends EnteredAmount {
  monthly: number;
}

/**
 * The largest figure accepted for one entry, in minor units per entry period: 10,000,000.00 in
 * the currency's major unit. Larger figures are taken for typing errors (docs/api.md).
 */
export const MAX_ENTRY_AMOUNT = 1_000_000_000;

const PER_YEAR: Record<EntryFrequency, number> = { weekly: 52, fortnightly: 26, monthly: 12 };

/**
 * The monthly figure of an entry: `amount × periods per year / 12`, rounded half up.
 * @param entry a non-negative integer amount in minor units and its frequency
 * @returns minor units per month
 */
export function toMonthly(entry: EnteredAmount): number {
  const yearly = entry.amount * PER_YEAR[entry.frequency];
  // yearly is a non-negative integer below 2^53 (amount ≤ MAX_ENTRY_AMOUNT): half up is floor((2y + 12) / 24).
  return Math.floor((2 * yearly + 12) / 24);
}

/** The stored form of an entry: the figure entered, its frequency and its monthly figure. */
export function storeAmount(entry: EnteredAmount): StoredAmount {
  return { amount: entry.amount, frequency: entry.frequency, monthly: toMonthly(entry) };
}

/**
 * True when `entry` costs at most `monthlyCap` minor units a month, compared exactly (no rounding):
 * `amount × periods per year ≤ monthlyCap × 12`. How an instalment is held to the affordable cap.
 */
export function fitsMonthly(entry: EnteredAmount, monthlyCap: number): boolean {
  return entry.amount * PER_YEAR[entry.frequency] <= monthlyCap * 12;
}
