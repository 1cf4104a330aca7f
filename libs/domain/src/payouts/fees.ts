/**
 * The platform fee (docs/api.md section 14): per succeeded payment, `fee_basis_points` of its
 * amount rounded half up to the minor unit, at least `fee_minimum`, never more than the payment,
 * with the organisation's settings in force when the payment succeeds (its balance item is made
 * then, ledger.ts). Integer arithmetic only: `(amount * bps + 5000) / 10000` with integer division,
 * in BigInt (JavaScript) and bigint (PostgreSQL). Amounts are at most 10^14 and basis points at
 * most 10^4, so the product stays below 2^63.
 */
import type { PayoutSettings } from '../organisations/payout-settings.js';

type FeeTerms = Required<Pick<PayoutSettings, 'fee_basis_points' | 'fee_minimum'>>;

/**
 * The fee of one payment of `amount` minor units (> 0).
 * @returns minor units, 0 <= fee <= amount
 */
export function platformFee(amount: number, terms: FeeTerms): number {
  const proportional = Number((BigInt(amount) * BigInt(terms.fee_basis_points) + 5000n) / 10000n);
  return Math.min(amount, Math.max(terms.fee_minimum, proportional));
}

/**
 * The same rule as SQL over the integer column `amount`, with the terms as bound parameters
 * (`bps`, `minimum`, in that order, each bound twice by the caller through `feeBindings`).
 */
export function feeSql(amount: string): string {
  return `least(${amount}, greatest(?::bigint, (${amount} * ?::bigint + 5000) / 10000))`;
}

/** The bindings of {@link feeSql}, in its order. */
export function feeBindings(terms: FeeTerms): [number, number] {
  return [terms.fee_minimum, terms.fee_basis_points];
}
