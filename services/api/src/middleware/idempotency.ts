/**
 * `Idempotency-Key` on POST, PATCH and PUT (docs/api.md sections 3 and 10): a client may retry a write safely.
 *
 * - The same key with the same request (method, path and body as JSON) within 24 h returns the
 *   stored response again, with `Idempotent-Replayed: true`, without running the request.
 * - The same key with another request: 422 `idempotency_key_reused`.
 * - The same key while the first request is still running (here or on another instance): 409
 *   `idempotency_key_in_use`.
 * - The same key and request after the customer its stored response concerned was erased (the
 *   response removed with their data, docs/api.md section 20): 410 `idempotency_response_erased`;
 *   the request does not run again.
 * - Only outcomes a retry would reproduce are stored: successes and business 4xx. Server faults
 *   (5xx) and answers that depend on the moment or the credentials (401, 403, 429) give the key
 *   back, so a retry runs again.
 *
 * - A success is stored in the same transaction as the write itself (docs/api.md section 11): the
 *   route runs the handler in one request transaction and stores the response there through the
 *   `PendingClaim` left on the response (`pendingClaim`), so no crash can leave a committed write
 *   without its stored response; a retry after any crash replays or runs a write that never
 *   committed. Errors thrown by the handler roll that transaction back, so storing them after it is
 *   safe.
 *
 * Keys are scoped to the token's tenant and client, so two clients cannot collide or read each
 * other's responses. Runs after authentication and body parsing, before the routes.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '@dms/errors';
import type { IdempotencyScope, IdempotencyStore, StoredResponse } from '../db/idempotency-store.js';
import { requestFingerprint } from '../http/fingerprint.js';
import { leaveClaim, type PendingClaim } from './idempotency-claim.js';

/** Request header carrying the client's idempotency key (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Response header set to `true` on a replayed response (as Stripe). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Methods whose requests a key makes safe to retry (`PUT` has the meaning of `PATCH`). */
const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** 1 to 255 printable ASCII characters (space included, as in Stripe's keys). */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** Response headers that belong to the outcome (not to the delivery) and are replayed. */
const REPLAYED_HEADERS = ['location', 'link', 'x-total-count', 'x-page-items'];

/** Statuses below 500 that a retry may legitimately change. */
const NOT_STORED = new Set([401, 403, 408, 429]);

/** Expired keys are purged at most this often per process, piggybacking on claims. */
const PURGE_INTERVAL_MS = 60_000;

function isStorable(status: number): boolean {
  return status < 500 && !NOT_STORED.has(status);
}

function pickHeaders(res: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

function replay(res: Response, stored: StoredResponse): void {
  res.set(stored.headers).set(REPLAYED_HEADER, 'true').status(stored.status).type('application/json').send(stored.body);
}

/**
 * Makes the response's first `send` store the outcome under the claim before it goes out (every
 * JSON answer, success or error, is written through `send`), and gives the claim back when the
 * response ended some other way. A client that hangs up does not end the claim: the handler is
 * still running, and its outcome is stored when it answers, so the client's retry gets the replay
 * (or 409 meanwhile) instead of running the operation a second time.
 */
function recordOutcome(req: Request, res: Response, store: IdempotencyStore, scope: IdempotencyScope, claim: string): void {
  const send = res.send.bind(res);
  let settled = false;
  const fail = (err: unknown) => req.log?.error({ err }, 'idempotency store failed');

  res.send = (body?: unknown) => {
    if (settled) return send(body);
    settled = true;
    const status = res.statusCode;
    const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : (JSON.stringify(body) ?? '');
    // Stored before sending: a client that retries right after the response must get the replay,
    // not a 409 for a claim still marked processing.
    const persisted = isStorable(status) ? store.complete(scope, claim, { status, headers: pickHeaders(res), body: text }) : store.release(scope, claim);
    persisted.catch(fail).finally(() => {
      if (!res.headersSent) send(text);
    });
    return res;
  };
  res.on('finish', () => {
    if (settled) return;
    settled = true;
    store.release(scope, claim).catch(fail);
  });
  const pending: PendingClaim = {
    storeIn: (trx, body) => store.complete(scope, claim, { status: res.statusCode, headers: pickHeaders(res), body }, trx),
    committed: () => {
      settled = true;
    },
  };
  leaveClaim(res, pending);
}

/**
 * Builds the middleware.
 * @throws (to `next`) ApiError 400 `idempotency_key_invalid`, 409 `idempotency_key_in_use`,
 *   410 `idempotency_response_erased`, 422 `idempotency_key_reused`
 */
export function idempotency(store: IdempotencyStore): RequestHandler {
  let lastPurge = 0;

  return async (req, res, next) => {
    if (!IDEMPOTENT_METHODS.has(req.method)) return next();
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!KEY_FORMAT.test(key)) {
      return next(new ApiError('idempotency_key_invalid', `${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters.`, { param: IDEMPOTENCY_HEADER }));
    }
    // A client that hung up before its body was read leaves an empty request behind (body-parser
    // skips finished streams). Claiming the key for it would store an answer to a request that was
    // never made, and turn the client's retry into a 422; the retry runs the request instead.
    if (req.destroyed) return;
    const principal = req.principal!;
    const scope: IdempotencyScope = { tenantId: principal.tenantId, clientId: principal.clientId, key };

    if (Date.now() - lastPurge > PURGE_INTERVAL_MS) {
      lastPurge = Date.now();
      store.purgeExpired().catch((err) => req.log?.warn({ err }, 'purging expired idempotency keys failed'));
    }

    const path = req.originalUrl;
    const result = await store.claim(scope, { fingerprint: requestFingerprint(req.method, path, req.body), method: req.method, path });
    switch (result.outcome) {
      case 'claimed':
        recordOutcome(req, res, store, scope, result.claim);
        return next();
      case 'replay':
        return replay(res, result.response);
      case 'in_use':
        return next(
          new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry once it has finished.', {
            param: IDEMPOTENCY_HEADER,
          }),
        );
      case 'erased':
        return next(
          new ApiError(
            'idempotency_response_erased',
            'The response stored for this Idempotency-Key concerned a customer since erased and was removed with their data; the request was not run again. Use a new key for a new request.',
            { param: IDEMPOTENCY_HEADER },
          ),
        );
      case 'mismatch':
        return next(
          new ApiError(
            'idempotency_key_reused',
            `This Idempotency-Key was used in the last 24 hours for a different request (${result.method} ${result.path} with its own body); use a new key for a new request.`,
            { param: IDEMPOTENCY_HEADER },
          ),
        );
    }
  };
}
