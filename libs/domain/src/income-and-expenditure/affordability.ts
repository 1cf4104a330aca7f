/**
 * Affordability of a plan from an income and expenditure statement (docs/api.md section 19,
 * docs/api.md "Income and expenditure"): offers include plans whose instalment is at most
 * `configurations.portal.disposable_income_share` percent of the disposable income.
 */
import { disposableIncome, type StoredStatement } from './statement.js';

/** The share used when an organisation sets none, percent. */
export const DEFAULT_DISPOSABLE_INCOME_SHARE = 100;

/**
 * The largest monthly instalment a statement affords: `sharePercent` % of the disposable income,
 * rounded down to the minor unit (never above the share), and 0 when nothing is left.
 * @param statement a stored statement (monthly minor units)
 * @param sharePercent an integer from 1 to 100
 * @returns minor units per month, a non-negative integer
 * @throws RangeError when `sharePercent` is not an integer from 1 to 100 (a programming error:
 *   the setting is validated where it is stored)
 */
export function affordableInstalmentCap(statement: StoredStatement, sharePercent: number): number {
  if (!Number.isInteger(sharePercent) || sharePercent < 1 || sharePercent > 100)
    throw new RangeError(`sharePercent must be an integer from 1 to 100: ${sharePercent}`);
  const left = disposableIncome(statement);
  return left <= 0 ? 0 : Math.floor((left * sharePercent) / 100);
}

/** A plan offer: `instalment_count` instalments of `amount` minor units, the last one `last_amount`. */
export interface AffordableOffer {
  instalment_count: number;
  amount: number;
  last_amount: number;
}

/**
 * The shortest monthly plan clearing `balance` whose instalment stays within `cap`: instalments
 * spread evenly (`ceil(balance / count)`), the last one taking what remains.
 * @param balance minor units owed, a positive integer
 * @param cap the largest instalment (from `affordableInstalmentCap`), minor units
 * @returns the offer, or null when the cap is 0 (nothing is affordable) or the plan would need more
 *   than `maxInstalments` instalments
 */
export function affordableOffer(balance: number, cap: number, maxInstalments = 120): AffordableOffer | null {
  if (cap <= 0 || balance <= 0) return null;
  const count = Math.ceil(balance / cap);
  if (count > maxInstalments) return null;
  const amount = Math.ceil(balance / count);
  return { instalment_count: count, amount, last_amount: balance - amount * (count - 1) };
}
