/**
 * JSON request bodies of POST, PATCH, PUT and DELETE: at most 1 MiB (413), `application/json` only
 * (415), UTF-8 (RFC 8259 section 8.1), optionally compressed with a `Content-Encoding` body-parser
 * decodes (gzip, deflate, br, and zstd where Node has it; another is 415 with `Accept-Encoding`, RFC
 * 9110 section 15.5.16), parsed strictly (objects and arrays at the top level). Requests without a
 * body pass through with `req.body` undefined, so action endpoints whose body is optional need no
 * content type. A DELETE's body is read like any other, so that one sent is checked
 * (operations/mount.ts accepts none but `{}`) rather than ignored. Every failure is an `ApiError`
 * of docs/api.md section 3.
 */
import express, { type Request, type RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import zlib from 'node:zlib';
import { ApiError } from '@dms/errors';

/** Message of the parse error raised for NUL characters. */
export const NUL_IN_JSON = 'JSON strings must not contain the NUL character (\\u0000).';

/** Message of the parse error raised for unpaired UTF-16 surrogates (`"\\ud800"`). */
export const LONE_SURROGATE_IN_JSON = 'JSON strings must be valid Unicode: \\ud800-\\udfff escapes must form surrogate pairs.';

/** Message of the 400 for a body whose bytes are not UTF-8. */
export const NOT_UTF8 = 'The request body is not valid UTF-8 (RFC 8259 section 8.1 requires JSON to be UTF-8).';

/** Parse errors whose message is passed on to the client as is. */
const STORABILITY_MESSAGES: ReadonlySet<string> = new Set([NUL_IN_JSON, LONE_SURROGATE_IN_JSON]);

/** The content codings a body may have (body-parser decodes them; zstd only where node:zlib has it). */
export const ACCEPTED_ENCODINGS: readonly string[] = ['gzip', 'deflate', 'br', ...('createZstdDecompress' in zlib ? ['zstd'] : [])];

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

/** Thrown by `verify` for bytes that are not UTF-8 (body-parser would decode them to U+FFFD). */
class NotUtf8Error extends Error {}

const parse = express.json({
  limit: '1mb',
  strict: true,
  type: () => true,
  reviver: rejectUnstorable,
  // Sees the decoded (decompressed) bytes before they become text.
  verify: (_req, _res, buf, encoding) => {
    if (encoding.toLowerCase() === 'utf-8' && !isUtf8(buf)) throw new NotUtf8Error(NOT_UTF8);
  },
});

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The body's content coding as sent (`identity` when none). */
const contentEncoding = (req: Request) => (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();

/**
 * Maps a body-parser failure to the registered error: malformed JSON, NUL, lone surrogates and
 * non-UTF-8 bytes 400 `invalid_json`; a body that does not decode with its `Content-Encoding`
 * (node:zlib's error, which body-parser passes on without a `type`) 400 `content_encoding_invalid`;
 * over 1 MiB (after decoding) 413; an unknown coding or charset 415. Anything else is returned as is.
 */
function fromBodyParser(err: { type?: string; message?: string; status?: number }, req: Request): unknown {
  if (err instanceof NotUtf8Error) return new ApiError('invalid_json', NOT_UTF8);
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', STORABILITY_MESSAGES.has(err.message ?? '') ? err.message! : 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new ApiError('body_too_large', 'The request body exceeds 1 MiB.');
    case 'encoding.unsupported':
      return new ApiError(
        'unsupported_media_type',
        `Content-Encoding \`${contentEncoding(req)}\` is not supported; send ${ACCEPTED_ENCODINGS.join(', ')} or none.`,
        {
          headers: { 'Accept-Encoding': ACCEPTED_ENCODINGS.join(', ') },
        },
      );
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'The request body must be UTF-8 JSON.');
    case undefined:
      if (err.status === 400 && contentEncoding(req) !== 'identity') {
        return new ApiError(
          'content_encoding_invalid',
          `The request body is not valid ${contentEncoding(req)} data, as its Content-Encoding says (${err.message ?? 'it does not decode'}).`,
        );
      }
      return err;
    default:
      return err;
  }
}

/**
 * Parses the JSON body of POST, PATCH, PUT and DELETE requests into `req.body`.
 * Errors (to `next`, as `ApiError`s): 415 `unsupported_media_type` for another content type or
 * content coding, and those of `fromBodyParser`.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT' && req.method !== 'DELETE') return next();
  // A client that hung up mid-body must not have its request run without the body it sent.
  if (req.destroyed) return;
  if (!hasBody(req)) return next();
  if (!req.is('application/json')) {
    return next(new ApiError('unsupported_media_type', 'The request body must be sent as `application/json`.'));
  }
  parse(req, res, (err?: unknown) => next(err === undefined ? undefined : fromBodyParser(err as Parameters<typeof fromBodyParser>[0], req)));
};
