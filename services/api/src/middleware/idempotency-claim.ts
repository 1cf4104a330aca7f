/**
 * The hand-over between the idempotency middleware (idempotency.ts) and the route: a claimed
 * `Idempotency-Key` whose response the route stores inside the request transaction, so it commits
 * with the write (docs/api.md section 11; operations/request-transaction.ts).
 */
import type { Response } from 'express';
import type { Knex } from '@dms/db';

/** A claimed key whose outcome the route stores inside its own transaction. */
export interface PendingClaim {
  /** Stores the response prepared on `res` (its status, replayed headers and `body`) in `trx`. */
  storeIn(trx: Knex.Transaction, body: string): Promise<void>;
  /** `trx` committed: sending the response must not store or release the key again. */
  committed(): void;
}

const CLAIM = 'idempotencyClaim';

/** Leaves `claim` on the response for the route (called by the middleware once it claimed the key). */
export function leaveClaim(res: Response, claim: PendingClaim): void {
  res.locals[CLAIM] = claim;
}

/** The claim of this request's `Idempotency-Key`, when it has one whose outcome is not yet stored. */
export function pendingClaim(res: Response): PendingClaim | undefined {
  return res.locals[CLAIM] as PendingClaim | undefined;
}
