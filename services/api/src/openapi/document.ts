/**
 * Generates the OpenAPI 3.1 document of the API (`GET /openapi.json`) from the operation tables
 * of the resources (the same declarations `mount` serves, with the JSON Schemas Ajv validates
 * with) and the error registry `ERROR_CODES` of `@dms/errors`. Nothing here restates a field, a
 * code or a route by hand.
 *
 * What every operation gets from its kind:
 * - every operation: 400 `parameter_invalid` (a query parameter, or a path that does not decode),
 *   431 `request_header_too_large` (a URL and headers over Node's limit, answered before any
 *   middleware, so without the rate-limit headers), 503 `service_unavailable` (with `Retry-After`)
 *   and 500; other success statuses it declares (`also`) beside its own;
 * - token operations: the OAuth 2.0 client-credentials security requirement with its scope,
 *   `Api-Version`, the rate-limit headers on every 2xx and 4xx answer, and the errors 400
 *   `unsupported_api_version`, 401, 403 (when scoped) and 429;
 * - DELETE: the body errors (a DELETE takes no body, and one that is sent is checked, as for any
 *   operation without a body);
 * - POST/PATCH/PUT: `Idempotency-Key`, `Idempotent-Replayed`, and the body, media-type and
 *   idempotency errors;
 * - lists and searches: `limit`/`after`/`before`, the `X-Total-Count`, `X-Page-Items` and `Link`
 *   headers, and the paging errors; searches also `X-Total-Count-Relation` (their total is counted
 *   up to a cap, docs/api.md section 4); `{id}` paths: 404.
 */
import { ERROR_CODES, type ErrorCode } from '@dms/errors';
import { ID_PREFIXES } from '@dms/domain';
import type { IdPrefix } from '@dms/ids';
import { OPERATOR_SCOPES, SCOPES, type Scope } from '@dms/scopes';
import { API_VERSIONS, LATEST_API_VERSION } from '../middleware/api-version.js';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../middleware/idempotency.js';
import type { AnyOperation as Operation } from '../operations/operation.js';
import { DEFAULT_LIMIT, EXPAND_PARAM, MAX_LIMIT } from '../operations/query.js';
import { DEFAULT_SEARCH_TOTAL_CAP, TOTAL_RELATION_HEADER } from '@dms/search';
import { componentSchemas } from './components.js';
import { withLivemodeProperty } from '../operations/livemode.js';
import { olderComponents, olderResponses } from './versions.js';
import { expandParameter, headerComponents, parameterComponents, plain, queryProperties, ref, sharedExpand, type Json } from './parameters.js';

/** The first paragraph of a test helper's description (docs/api.md section 15). */
export const TEST_ONLY_NOTE = '**Test mode only**: for test clients (`clients create --test`); a live token gets 404 `route_not_found`.';

/** Where the document points clients. */
export interface DocumentOptions {
  /** Public base URL of the API (`servers[0].url`). */
  serverUrl: string;
  /** Token endpoint of the issuer (`${AUTH_ISSUER}/oauth/token`). */
  tokenUrl: string;
  /** Matches a search counts exactly (`SEARCH_TOTAL_CAP`); default `DEFAULT_SEARCH_TOTAL_CAP`. */
  searchTotalCap?: number;
}

/** An OpenAPI 3.1 document (kept structural: it is data for JSON). */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const SECURITY_SCHEME = 'oauth2';

const DESCRIPTION = `Machine-to-machine API of the Debt Management Service.

**Authentication**: OAuth 2.0 client credentials. Request a token at the token URL of the security
scheme with your \`client_id\`, \`client_secret\` and \`audience\`, then send
\`Authorization: Bearer <token>\` with every request. Each operation names the scope it needs.

**Errors**: \`{"object":"error","type","code","message","param"?,"errors"?,"request_id"}\` with a
stable \`code\`; every response carries \`Request-Id\`.

**Pagination**: lists and searches take \`limit\` (1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}), \`after\` or
\`before\` (an object id of the list), newest first, with \`X-Total-Count\`, \`X-Page-Items\` and \`Link\`.
A search counts its matches up to a cap and says whether its \`X-Total-Count\` is exact in \`${TOTAL_RELATION_HEADER}\`.

**Idempotency**: send \`${IDEMPOTENCY_HEADER}\` on any POST, PATCH or PUT to retry safely for 24 hours.

**Rate limits**: per client, announced by \`RateLimit\` and \`RateLimit-Policy\`; over the budget, 429 with \`Retry-After\`.

**Versioning**: optional \`Api-Version\` header (supported: ${API_VERSIONS.join(', ')}); the response echoes the version used.`;

/** Scope descriptions from the names (`debts:read` → "Read debts"); the operators' say so. */
function scopeDescriptions(): Record<string, string> {
  const operator = (access: string) =>
    `Operator clients only: ${access === 'read' ? 'read' : 'read and change'} any tenant named in \`Tenant-Id\`, and the operator routes (section 12)`;
  return Object.fromEntries(
    [...SCOPES, ...OPERATOR_SCOPES].map((s) => {
      const [resource, access] = s.split(':') as [string, string];
      return [s, resource === 'operations' ? operator(access) : `${access === 'read' ? 'Read' : 'Create and change'} ${resource}`];
    }),
  );
}

/** A search operation (it takes `query`, docs/api.md section 4): its total is capped. */
const isSearch = (op: Operation) => Boolean(queryProperties(op).query);

const isWrite = (op: Operation) => op.method === 'post' || op.method === 'patch' || op.method === 'put';

/** Error codes an operation can answer with, from its kind plus its own list. */
function errorCodesOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (op.access.token) {
    codes.add('invalid_token').add('rate_limited').add('unsupported_api_version');
    if (op.access.scope) codes.add('insufficient_scope');
  }
  if (isWrite(op) || op.method === 'delete') {
    for (const c of ['invalid_json', 'content_encoding_invalid', 'validation_failed', 'body_too_large', 'unsupported_media_type'] as const) codes.add(c);
  }
  if (isWrite(op)) {
    for (const c of ['idempotency_key_invalid', 'idempotency_key_in_use', 'idempotency_response_erased', 'idempotency_key_reused'] as const) codes.add(c);
  }
  const query = queryProperties(op);
  if (query.after) codes.add('parameter_invalid').add('parameters_exclusive').add('invalid_cursor');
  if (isSearch(op)) codes.add('invalid_search_query');
  if (Object.keys(query).length) codes.add('parameter_invalid');
  if (op.pathParams) codes.add('resource_missing');
  // Any query parameter (an unknown one included), a path that does not decode, or an operator's
  // missing `Tenant-Id` (docs/api.md section 12).
  codes.add('parameter_invalid');
  // A test helper does not exist for a live token (docs/api.md section 15).
  if (op.testOnly) codes.add('route_not_found');
  for (const c of op.errors ?? []) codes.add(c);
  // Any request whose URL and headers exceed Node's limit, a long query string above all (answered
  // before any middleware: libs/lifecycle's client-errors.ts).
  codes.add('request_header_too_large');
  codes.add('internal_error').add('service_unavailable');
  return [...codes];
}

const rateLimitHeaders = { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') };

function errorResponses(op: Operation): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, unknown> = { 'Request-Id': ref('headers', 'Request-Id') };
    if (status === 401 || status === 403) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
    if (status === 429 || status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
    // Every answer of a token operation below 500 has passed the rate limiters (the failed-token one
    // for a 401), which set their headers.
    // A 431 is answered before anything else ran.
    if (op.access.token && status < 500 && status !== 431) Object.assign(headers, rateLimitHeaders);
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join(' '),
      headers,
      content: { 'application/json': { schema: { allOf: [ref('schemas', 'Error'), { properties: { code: { enum: codes } } }] } } },
    };
  }
  return out;
}

function successResponses(op: Operation, older: Record<string, unknown>): Record<string, unknown> {
  let main = successResponse(op);
  // The older versions' shapes (docs/api.md section 15, versions.ts).
  const versions = olderResponses(op, older);
  if (versions) main = { ...main, description: `${main.description as string} ${versions.note}`, 'x-api-versions': versions.extension };
  const out: Record<string, unknown> = { [String(op.response.status)]: main };
  for (const [status, when] of Object.entries(op.response.also ?? {})) out[status] = { ...main, description: when };
  return out;
}

function successResponse(op: Operation): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'Request-Id': ref('headers', 'Request-Id') };
  if (op.access.token) {
    Object.assign(headers, { 'Api-Version': ref('headers', 'Api-Version'), ...rateLimitHeaders });
  }
  if (isWrite(op)) headers[REPLAYED_HEADER] = ref('headers', REPLAYED_HEADER);
  if (op.response.list) {
    Object.assign(headers, { 'X-Total-Count': ref('headers', 'X-Total-Count'), 'X-Page-Items': ref('headers', 'X-Page-Items'), Link: ref('headers', 'Link') });
    if (isSearch(op)) headers[TOTAL_RELATION_HEADER] = ref('headers', TOTAL_RELATION_HEADER);
  }
  const item = ref('schemas', op.response.name);
  const schema = op.response.list
    ? { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } }
    : item;
  const name = op.response.name;
  const description = op.response.list ? `A page of ${name} objects.` : op.response.status === 201 ? `The created ${name}.` : `The ${name}.`;
  return { description, headers, content: { [op.response.produces ?? 'application/json']: { schema } } };
}

function pathParameter(name: string, prefix: IdPrefix): Record<string, unknown> {
  const type = Object.entries(ID_PREFIXES)
    .find(([, p]) => p === prefix)![0]
    .replace('_', ' ');
  return {
    name,
    in: 'path',
    required: true,
    description: `Id of the ${type} (\`${prefix}_…\`). Another tenant's id is 404 like an unknown one.`,
    // No id is longer; a longer or malformed one names no object (404).
    schema: { type: 'string', maxLength: prefix.length + 25, examples: [`${prefix}_1a2B3c4D5e6F7g8H9i0JkLmN`] },
  };
}

/**
 * The operation's OpenAPI object.
 * @param expand the shared `expand[]` schema: an operation accepting other values states its own
 */
function operationObject(op: Operation, expand: Json | undefined, older: Record<string, unknown>): Record<string, unknown> {
  const parameters: unknown[] = Object.entries(op.pathParams ?? {}).map(([name, prefix]) => pathParameter(name, prefix));
  const required = new Set(((op.query as Json | undefined)?.required ?? []) as string[]);
  for (const [name, schema] of Object.entries(queryProperties(op))) {
    const ownExpand = name === EXPAND_PARAM && JSON.stringify(schema) !== JSON.stringify(expand);
    const shared = name === EXPAND_PARAM ? 'expand' : ['limit', 'after', 'before'].includes(name) ? name : undefined;
    if (ownExpand) parameters.push(expandParameter(schema));
    else if (shared) parameters.push(ref('parameters', shared));
    else {
      const { description, ...rest } = plain(schema);
      parameters.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  if (op.access.token) parameters.push(ref('parameters', 'ApiVersion'));
  if (op.access.token) parameters.push(ref('parameters', op.path.startsWith('/operator/') ? 'OperatorTenantId' : 'TenantId'));
  if (isWrite(op)) parameters.push(ref('parameters', 'IdempotencyKey'));

  const scopes: Scope[] = op.access.token && op.access.scope ? [op.access.scope] : [];
  const testOnly = op.testOnly ? TEST_ONLY_NOTE : '';
  const object: Record<string, unknown> = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description || scopes.length || testOnly
      ? { description: [testOnly, op.description, scopes.length ? `Scope: \`${scopes[0]}\`.` : ''].filter(Boolean).join('\n\n') }
      : {}),
    ...(op.testOnly ? { 'x-test-only': true } : {}),
    // The event types it may record (docs/api.md section 7), as declared with the operation.
    ...(op.events?.length ? { 'x-events': op.events } : {}),
    security: op.access.token ? [{ [SECURITY_SCHEME]: scopes }] : [],
    parameters,
  };
  if (op.body) {
    object.requestBody = {
      required: !op.body.optional,
      content: { [op.body.multipart ? 'multipart/form-data' : 'application/json']: { schema: ref('schemas', op.body.name) } },
    };
  }
  object.responses = { ...successResponses(op, older), ...errorResponses(op) };
  return object;
}

/**
 * Builds the document.
 * @param operations every operation of the API, as mounted
 * @returns an OpenAPI 3.1.0 document (JSON-serialisable)
 */
export function buildOpenApiDocument(opts: DocumentOptions, operations: readonly Operation[]): OpenApiDocument {
  return withIntegerFormats(assemble(opts, operations));
}

/**
 * Each integer schema of `doc` without a `format` gets `int32` when its bounds fit in 32 bits,
 * else `int64` (amounts in minor units, counts); on a copy, since the schemas are shared with the
 * validators, whose strict Ajv knows no such format.
 */
function withIntegerFormats(doc: OpenApiDocument): OpenApiDocument {
  const INT32 = 2 ** 31;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const s = node as Json;
    const types = Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
    if (types.includes('integer') && s.format === undefined) {
      const fits = typeof s.minimum === 'number' && typeof s.maximum === 'number' && s.minimum >= -INT32 && s.maximum < INT32;
      s.format = fits ? 'int32' : 'int64';
    }
    Object.values(s).forEach(visit);
  };
  const copy = JSON.parse(JSON.stringify(doc)) as OpenApiDocument;
  visit(copy);
  return copy;
}

function assemble(opts: DocumentOptions, operations: readonly Operation[]): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const expand = sharedExpand(operations);
  const schemas = JSON.parse(JSON.stringify(componentSchemas(operations))) as Record<string, unknown>;
  const older = olderComponents(schemas, operations);
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op, expand, older);
  const tags = [...new Set(operations.map((o) => o.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: { title: 'Debt Management Service API', version: LATEST_API_VERSION, description: DESCRIPTION },
    // The one server is the API's public base URL, meant for the tenants' own systems.
    servers: [{ url: opts.serverUrl, 'x-internal': false }],
    tags,
    paths,
    components: {
      schemas: withLivemodeProperty({ ...schemas, ...older }, 'documented') as Json,
      parameters: parameterComponents(operations),
      headers: headerComponents(opts.searchTotalCap ?? DEFAULT_SEARCH_TOTAL_CAP),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'oauth2',
          description:
            'OAuth 2.0 client credentials grant (RFC 6749 section 4.4); send `audience` (the API identifier) with the token request. ' +
            "The access token is a JWT handled per RFC8725 (JWT Best Current Practices): signed with RS256 or ES256 from the issuer's JWKS, " +
            'the algorithm checked against an allow-list, and `iss`, `aud` and `exp` verified on every request; it expires after `expires_in` seconds.',
          flows: { clientCredentials: { tokenUrl: opts.tokenUrl, scopes: scopeDescriptions() } },
        },
      },
    },
  };
}
