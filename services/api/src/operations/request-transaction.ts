/**
 * The request transaction of an idempotent write (docs/api.md sections 3 and 11): when a request
 * holds an `Idempotency-Key` claim, its handler runs with `ctx.db` bound to one transaction, and
 * the response it produced is stored under the key in that same transaction before COMMIT. Every
 * store writes through `ctx.db` (@dms/domain's kernel/owned.ts opens savepoints inside it), so the write and its
 * stored response commit together or not at all, by construction: a crash at any point leaves
 * either both (a retry replays) or neither (a retry runs the write for the first time).
 */
import type { Response } from 'express';
import type { AppContext } from '../context.js';
import { pendingClaim } from '../middleware/idempotency-claim.js';

/**
 * Test-only fault injection: with `NODE_ENV=test` and `DMS_TEST_CRASH_AFTER_COMMIT=1` the process
 * kills itself right after an idempotent write committed and before its response is sent, the
 * moment a crash used to lose the stored response (test/idempotency/atomic.test.ts).
 */
const CRASH_AFTER_COMMIT = process.env.NODE_ENV === 'test' && process.env.DMS_TEST_CRASH_AFTER_COMMIT === '1';

/**
 * Runs `produce` (the handler and the serialization of its answer) and returns the body text it
 * produced; inside the request transaction, with the body stored under the claim, when the request
 * holds an `Idempotency-Key` claim.
 * @param produce sets the status and headers on `res` and returns the JSON body text, or
 *   undefined when the handler wrote its response itself
 * @throws whatever `produce` throws (the transaction, and with it the write, rolled back)
 */
export async function runWrite(ctx: AppContext, res: Response, produce: (ctx: AppContext) => Promise<string | undefined>): Promise<string | undefined> {
  const claim = pendingClaim(res);
  if (!claim) return produce(ctx);
  const body = await ctx.db.transaction(async (trx) => {
    const text = await produce({ ...ctx, db: trx });
    if (text !== undefined) await claim.storeIn(trx, text);
    return text;
  });
  if (body !== undefined) claim.committed();
  if (CRASH_AFTER_COMMIT) process.kill(process.pid, 'SIGKILL');
  return body;
}
