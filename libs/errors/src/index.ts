/**
 * The error model of the resource API (docs/api.md section 3): one base class, one registry of
 * stable codes, one serializer. Handlers throw `ApiError`s; the API's error middleware turns any
 * thrown value into the body
 * `{"object":"error","type","code","message","param"?,"errors"?,"request_id"}`.
 *
 * Modelled on oidc-provider's `lib/helpers/errors.js`: `expose` is true only below 500, so a server
 * fault never leaks its message, stack or SQL.
 */

/** The `type` member of an error body, one per family of status codes. */
export type ErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found' | 'conflict' | 'payment_error' | 'rate_limit_error' | 'api_error';

/** Registry entry: status, type and a description used by the OpenAPI document. */
export interface ErrorCodeSpec {
  status: number;
  type: ErrorType;
  description: string;
}

/**
 * Every stable error `code` the API emits. Clients may branch on `code`; it never changes meaning.
 * The OpenAPI document lists this registry, so code and docs cannot drift apart.
 */
export const ERROR_CODES = {
  invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The body is not valid JSON: malformed, not UTF-8, or a string holding NUL or an unpaired surrogate.',
  },
  content_encoding_invalid: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The body does not decode with its `Content-Encoding` (gzip, deflate or br): not compressed as declared, or truncated.',
  },
  validation_failed: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The body or query failed schema validation; `param` names the first field, `errors` lists all.',
  },
  parameter_invalid: { status: 400, type: 'invalid_request_error', description: 'A query or path parameter has an invalid value; `param` names it.' },
  parameters_exclusive: {
    status: 400,
    type: 'invalid_request_error',
    description: 'Two parameters that cannot be combined were both given (e.g. `after` and `before`).',
  },
  invalid_cursor: { status: 400, type: 'invalid_request_error', description: 'A pagination cursor does not name an object of this list.' },
  invalid_search_query: { status: 400, type: 'invalid_request_error', description: 'The search `query` could not be parsed; the message gives the position.' },
  idempotency_key_invalid: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The `Idempotency-Key` header is not 1 to 255 printable ASCII characters.',
  },
  unsupported_api_version: { status: 400, type: 'invalid_request_error', description: 'The `Api-Version` header names no supported version.' },
  invalid_token: { status: 401, type: 'authentication_error', description: 'No bearer token, or it is malformed, expired, or not issued for this API.' },
  insufficient_scope: { status: 403, type: 'permission_error', description: 'The token lacks the scope this operation requires.' },
  resource_missing: { status: 404, type: 'not_found', description: 'No such object for this tenant.' },
  route_not_found: { status: 404, type: 'not_found', description: 'No such path.' },
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    description: 'The path exists but not with this method; `Allow` lists the methods it has.',
  },
  invalid_state_transition: { status: 409, type: 'conflict', description: 'The object is not in a state that allows this action.' },
  resource_conflict: {
    status: 409,
    type: 'conflict',
    description: "Another object already holds what this request needs (a debt's second active payment plan, a duplicate invoice reference).",
  },
  idempotency_key_in_use: { status: 409, type: 'conflict', description: 'A request with the same idempotency key is still being processed.' },
  idempotency_response_erased: {
    status: 410,
    type: 'invalid_request_error',
    description:
      'The response stored for this idempotency key concerned a customer since erased and was removed with their data; the request is not run again. Use a new key for a new request.',
  },
  payment_provider_refused: {
    status: 402,
    type: 'payment_error',
    description: "The payment's provider refused the refund (declined, failed, or not refundable there); nothing was refunded or recorded.",
  },
  body_too_large: { status: 413, type: 'invalid_request_error', description: 'The body exceeds 1 MiB.' },
  file_too_large: {
    status: 413,
    type: 'invalid_request_error',
    description: 'The uploaded file exceeds the import size limit (`IMPORT_MAX_BYTES`, default 1 GiB).',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    description: 'The body is not `application/json`, or its `Content-Encoding` is not one the API decodes (listed in `Accept-Encoding`).',
  },
  idempotency_key_reused: { status: 422, type: 'invalid_request_error', description: 'The idempotency key was used with a different request.' },
  business_rule_violation: { status: 422, type: 'invalid_request_error', description: 'The request is well formed but breaks a business rule.' },
  request_header_too_large: {
    status: 431,
    type: 'invalid_request_error',
    description: "The request line and headers exceed the server's limit (16 KiB); nothing was read or changed.",
  },
  rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    description: 'Too many requests for this client (or, without a valid token, from this address); retry after `Retry-After` seconds.',
  },
  internal_error: { status: 500, type: 'api_error', description: 'An unexpected server error.' },
  payment_provider_unavailable: {
    status: 502,
    type: 'api_error',
    description:
      "The payment's provider could not be reached or answered with a server error; nothing was refunded or recorded. Retry later (with the same `Idempotency-Key`).",
  },
  service_unavailable: {
    status: 503,
    type: 'api_error',
    description: 'A dependency (such as the database) is unavailable or too busy to answer in time; nothing was changed. Retry after `Retry-After` seconds.',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One field-level problem inside a validation error. */
export interface FieldError {
  param: string;
  message: string;
}

/** Options of an `ApiError` beyond its code and message. */
export interface ApiErrorOptions {
  /** The request field at fault, in dotted or bracket notation (`credentials.oauth2.client_id`). */
  param?: string;
  /** Every field problem when there are several. */
  errors?: FieldError[];
  /** Extra response headers (e.g. `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * An error with a registered `code`. Its status and type come from `ERROR_CODES`; `expose` tells
 * whether the message may reach the client (only below 500).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param?: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
    this.param = options.param;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  /**
   * True when the message is meant for the client: 4xx, and `service_unavailable` and
   * `payment_provider_unavailable`, whose messages are written by us and carry no internals.
   * Other 5xx messages are replaced.
   */
  get expose(): boolean {
    return this.status < 500 || this.code === 'service_unavailable' || this.code === 'payment_provider_unavailable';
  }
}

/** The JSON body every error response carries (docs/api.md section 3). */
export interface ErrorBody {
  object: 'error';
  type: ErrorType;
  code: ErrorCode;
  message: string;
  param?: string;
  errors?: FieldError[];
  request_id: string;
}

/**
 * Serializes any thrown value into an error body and status. Unknown errors become a generic 500
 * so that stack traces, SQL and secrets never reach the client.
 * @param err anything thrown
 * @param requestId the `req_…` id of the request, echoed in the body
 */
export function toErrorBody(err: unknown, requestId: string): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const apiError = err instanceof ApiError ? err : new ApiError('internal_error', 'An unexpected error occurred.');
  const body: ErrorBody = {
    object: 'error',
    type: apiError.type,
    code: apiError.code,
    message: apiError.expose ? apiError.message : 'An unexpected error occurred. Retry later, quoting the request id.',
    request_id: requestId,
  };
  if (apiError.param !== undefined) body.param = apiError.param;
  if (apiError.errors?.length) body.errors = apiError.errors;
  return { status: apiError.status, body, headers: apiError.headers };
}
