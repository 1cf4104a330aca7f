/**
 * Lanes of an import (docs/api.md section 16): its rows are split by `account_number` into a fixed
 * number of lanes, so every row of one account is in one lane and is applied in file order, while
 * several workers apply different lanes at once.
 */

/** Lanes per import: how many workers can share one import. */
export const LANES = 16;

/** The lane of an account number (FNV-1a over its UTF-16 code units; pure and stable). */
export function laneOf(accountNumber: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < accountNumber.length; i++) {
    h ^= accountNumber.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % LANES;
}
