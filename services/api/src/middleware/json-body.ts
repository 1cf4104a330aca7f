/**
 * JSON request bodies of POST, PATCH, PUT and DELETE: at most 1 MiB (413), `application/json` only
 * (415), parsed strictly (objects and arrays at the top level). Requests without a body pass
 * through with `req.body` undefined, so action endpoints whose body is optional need no content
 * type. A DELETE's body is read like any other, so that one sent is checked (operations/mount.ts
 * accepts none but `{}`) rather than ignored.
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '@dms/errors';

/** Message of the parse error raised for NUL characters, recognised by the error middleware. */
export const NUL_IN_JSON = 'JSON strings must not contain the NUL character (\\u0000).';

/** Message of the parse error raised for unpaired UTF-16 surrogates (`"\\ud800"`). */
export const LONE_SURROGATE_IN_JSON = 'JSON strings must be valid Unicode: \\ud800-\\udfff escapes must form surrogate pairs.';

/** Parse errors whose message the error middleware passes on to the client as is. */
export const STORABILITY_MESSAGES: ReadonlySet<string> = new Set([NUL_IN_JSON, LONE_SURROGATE_IN_JSON]);

// With the `u` flag a well-formed surrogate pair is one code point, so only unpaired halves match.
const LONE_SURROGATE = /\p{Surrogate}/u;

// PostgreSQL text cannot hold U+0000, and jsonb refuses an unpaired surrogate escape (text would
// silently turn it into U+FFFD); refusing both while parsing makes them one clear 400 for every
// endpoint instead of a database error at insert time.
function rejectUnstorable(key: string, value: unknown): unknown {
  for (const s of typeof value === 'string' ? [key, value] : [key]) {
    if (s.includes('\u0000')) throw new SyntaxError(NUL_IN_JSON);
    if (LONE_SURROGATE.test(s)) throw new SyntaxError(LONE_SURROGATE_IN_JSON);
  }
  return value;
}

const parse = express.json({ limit: '1mb', strict: true, type: () => true, reviver: rejectUnstorable });

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Parses the JSON body of POST, PATCH, PUT and DELETE requests into `req.body`.
 * Errors (to `next`): 415 `unsupported_media_type` for another content type; parse, size (> 1 MiB) and
 * NUL failures arrive as body-parser errors that middleware/errors.ts maps to 400 and 413.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT' && req.method !== 'DELETE') return next();
  // A client that hung up mid-body must not have its request run without the body it sent.
  if (req.destroyed) return;
  if (!hasBody(req)) return next();
  if (!req.is('application/json')) {
    return next(new ApiError('unsupported_media_type', 'The request body must be sent as `application/json`.'));
  }
  parse(req, res, next);
};
