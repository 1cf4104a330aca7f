/**
 * The reusable response headers and request parameters of the OpenAPI document (components
 * `headers` and `parameters`, docs/api.md sections 3 and 4), generated from the same constants the
 * middleware and the query schemas enforce.
 */
import { API_VERSIONS, LATEST_API_VERSION } from '../middleware/api-version.js';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../middleware/idempotency.js';
import { TENANT_ID_HEADER } from '../middleware/operator-tenant.js';
import type { AnyOperation as Operation } from '../operations/operation.js';
import { DEFAULT_LIMIT, EXPAND_PARAM, MAX_ID_LENGTH, MAX_LIMIT } from '../operations/query.js';
import { TOTAL_RELATION_HEADER } from '@dms/search';

/** A JSON Schema or OpenAPI fragment. */
export type Json = Record<string, unknown>;

/** A `$ref` to a component of `kind`. */
export const ref = (kind: 'schemas' | 'parameters' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The response headers (components.headers); `cap` is the server's search-total cap. */
export function headerComponents(cap: number): Record<string, unknown> {
  const int = { type: 'integer', minimum: 0 };
  const str = { type: 'string' };
  return {
    'Request-Id': { description: 'Identifier of this request (`req_…`), also in error bodies and logs.', schema: str },
    'Api-Version': { description: 'The API version used to answer.', schema: { type: 'string', enum: [...API_VERSIONS] } },
    RateLimit: {
      description: 'Remaining quota of the client in the current window (IETF draft-ietf-httpapi-ratelimit-headers-08), e.g. `"client"; r=599; t=60`.',
      schema: str,
    },
    'RateLimit-Policy': { description: 'The quota policy: requests `q` per window `w` seconds, e.g. `"client"; q=600; w=60`.', schema: str },
    'Retry-After': { description: 'Seconds to wait before retrying (RFC 9110 section 10.2.3).', schema: int },
    [REPLAYED_HEADER]: {
      description: `\`true\` when this is the stored response of an earlier request with the same \`${IDEMPOTENCY_HEADER}\`.`,
      schema: { type: 'string', enum: ['true'] },
    },
    'X-Total-Count': {
      description: `Number of objects in the whole list; for a search, the number of matches counted up to ${cap} (see \`${TOTAL_RELATION_HEADER}\`).`,
      schema: int,
    },
    [TOTAL_RELATION_HEADER]: {
      description:
        `On every search response: \`eq\` when \`X-Total-Count\` is the exact number of matches, \`gte\` when more than ${cap} match ` +
        `(\`X-Total-Count\` is then ${cap}, a lower bound; pages still reach every match). Like Elasticsearch's \`hits.total.relation\`.`,
      schema: { type: 'string', enum: ['eq', 'gte'] },
    },
    'X-Page-Items': { description: 'Number of objects in this page.', schema: int },
    Link: { description: 'RFC 8288 links with absolute URLs: `rel="first"`, and `rel="next"` / `rel="prev"` when such pages exist.', schema: str },
    'WWW-Authenticate': { description: 'RFC 6750 challenge, e.g. `Bearer error="invalid_token"`.', schema: str },
  };
}

/** The `expand[]` schema most operations take (the debts'): the shared `expand` parameter. */
export function sharedExpand(operations: readonly Operation[]): Json | undefined {
  const uses = new Map<string, { schema: Json; n: number }>();
  for (const schema of operations.map((o) => queryProperties(o)[EXPAND_PARAM])) {
    if (!schema) continue;
    const key = JSON.stringify(schema);
    const seen = uses.get(key) ?? { schema, n: 0 };
    uses.set(key, { schema, n: seen.n + 1 });
  }
  return [...uses.values()].sort((a, b) => b.n - a.n)[0]?.schema;
}

/** The `expand[]` parameter accepting the values of `schema` (each resource has its own, docs/api.md section 10). */
export function expandParameter(schema: Json): Json {
  return {
    name: EXPAND_PARAM,
    in: 'query',
    description: 'Embed the related objects in place of their ids, or as lists.',
    style: 'form',
    explode: true,
    schema: plain(schema),
  };
}

/** The reusable parameters (components.parameters). */
export function parameterComponents(operations: readonly Operation[]): Record<string, unknown> {
  const expand = sharedExpand(operations);
  return {
    limit: {
      name: 'limit',
      in: 'query',
      description: 'Objects per page.',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    },
    after: {
      name: 'after',
      in: 'query',
      description: 'An object id of this list: return the objects after it (older). Not with `before`.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
    },
    before: {
      name: 'before',
      in: 'query',
      description: 'An object id of this list: return the objects just before it (newer). Not with `after`.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
    },
    ...(expand ? { expand: expandParameter(expand) } : {}),
    ApiVersion: {
      name: 'Api-Version',
      in: 'header',
      description: `API version (YYYY-MM-DD); the newest (${LATEST_API_VERSION}) when omitted. An unknown version is 400.`,
      schema: { type: 'string', enum: [...API_VERSIONS] },
    },
    TenantId: {
      name: TENANT_ID_HEADER,
      in: 'header',
      description:
        "Operator tokens only (docs/api.md section 12): the tenant the request acts for, required with an operator's token (400 `parameter_invalid` when missing or unknown); a tenant's token acts for its own tenant and ignores it.",
      schema: { type: 'string', pattern: '^ten_[0-9A-Za-z]{24}$', maxLength: 28 },
    },
    OperatorTenantId: {
      name: TENANT_ID_HEADER,
      in: 'header',
      required: true,
      description: 'The tenant the operator acts for (400 `parameter_invalid` when missing or unknown).',
      schema: { type: 'string', pattern: '^ten_[0-9A-Za-z]{24}$', maxLength: 28 },
    },
    IdempotencyKey: {
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      description:
        'Makes the request safe to retry for 24 hours: the same key with the same request returns the stored response (`Idempotent-Replayed: true`); with another request, 422; while the first is still running, 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    },
  };
}

/** The properties of an operation's query schema (none when it takes no query). */
export function queryProperties(op: Operation): Record<string, Json> {
  return ((op.query as Json | undefined)?.properties ?? {}) as Record<string, Json>;
}

/** A schema without the validator-only `x-` annotations. */
export function plain(schema: Json): Json {
  return Object.fromEntries(Object.entries(schema).filter(([k]) => !k.startsWith('x-')));
}
