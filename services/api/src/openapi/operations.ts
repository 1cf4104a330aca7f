/**
 * Every operation of the API as data (CONTRACT sections 3 to 7): method, path, scope, bodies,
 * query parameters and the errors specific to it. The OpenAPI generator (document.ts) turns this
 * list into `/openapi.json`; a test compares it with the routes Express actually registered, so a
 * route cannot exist undocumented, nor a documented one go missing.
 *
 * Schemas are named components (components.ts), taken from the domain modules that Ajv validates
 * with. Error codes common to a kind of operation (authentication, bodies, idempotency, paging) are
 * added by the generator; `errors` lists only what is particular to one operation.
 */
import type { ErrorCode } from '@dms/errors';
import type { IdPrefix } from '@dms/ids';
import type { Scope } from '@dms/scopes';
import { DEBT_ACTIONS, TRANSITIONS, type DebtAction } from '../domain/debt-lifecycle.js';
import { CUSTOMER_SEARCH_FIELDS, DEBT_SEARCH_FIELDS } from '../search/registries.js';
import type { SearchRegistry } from '../search/compiler.js';
import type { ComponentName } from './components.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** Query parameter sets an operation accepts. */
export type QueryKind = 'page' | 'expand' | 'search';

/** How the caller authenticates: a bearer token (with `scope` when one is needed), or not at all. */
export type Access = { token: true; scope?: Scope } | { token: false };

/** One documented operation. */
export interface Operation {
  method: HttpMethod;
  /** OpenAPI path template, parameters as `{name}` (the same names as the Express route). */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters: name → prefix of the object id it takes (`deb`, `wh`…). */
  pathParams?: Record<string, IdPrefix>;
  query?: QueryKind[];
  /** Fields of the `query` parameter (search operations). */
  searchFields?: SearchRegistry;
  /** Request body component; `optionalBody` when the body may be omitted (lifecycle actions). */
  body?: ComponentName;
  optionalBody?: boolean;
  /** Success status and its body. `list` wraps `schema` in `{"object":"list","data":[…]}`. */
  response: { status: 200 | 201; schema: ComponentName; list?: boolean };
  /** Errors particular to this operation. */
  errors?: ErrorCode[];
  /** Non-JSON success body (operational endpoints). */
  produces?: 'text/html' | 'text/plain';
}

const token = (scope?: Scope): Access => ({ token: true, scope });
const PUBLIC: Access = { token: false };

/** CRUD operations of one resource, so every collection is described the same way. */
function resource(opts: {
  path: string;
  idPrefix: IdPrefix;
  tag: string;
  noun: string;
  schema: ComponentName;
  read: Scope;
  write: Scope;
  create?: ComponentName;
  update?: ComponentName;
  deleted?: ComponentName;
  searchFields?: SearchRegistry;
  expandable?: boolean;
  extraErrors?: Partial<Record<'create' | 'update' | 'delete', ErrorCode[]>>;
}): Operation[] {
  const { path, tag, noun } = opts;
  const Noun = noun.split(' ').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  const aNoun = `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
  const name = tag.replace(/\s+/g, '');
  const item = `${path}/{id}`;
  const pathParams = { id: opts.idPrefix };
  const expand: QueryKind[] = opts.expandable ? ['expand'] : [];
  const ops: Operation[] = [
    {
      method: 'get',
      path,
      operationId: `list${name}`,
      tag,
      summary: `List ${tag.toLowerCase()}`,
      description: `The tenant's ${tag.toLowerCase()}, newest first, paginated with \`limit\`/\`after\`/\`before\`.`,
      access: token(opts.read),
      query: ['page', ...expand],
      response: { status: 200, schema: opts.schema, list: true },
    },
  ];
  if (opts.searchFields) {
    ops.push({
      method: 'get',
      path: `${path}/search`,
      operationId: `search${name}`,
      tag,
      summary: `Search ${tag.toLowerCase()}`,
      description: 'Terms `field:value`, `field>value`, `>=`, `<`, `<=` joined by `AND`; values bare or double-quoted. Paginated like lists; `X-Total-Count` counts the matches.',
      access: token(opts.read),
      query: ['search', 'page', ...expand],
      searchFields: opts.searchFields,
      response: { status: 200, schema: opts.schema, list: true },
      errors: ['invalid_search_query'],
    });
  }
  if (opts.create) {
    ops.push({
      method: 'post',
      path,
      operationId: `create${Noun}`,
      tag,
      summary: `Create ${aNoun}`,
      access: token(opts.write),
      body: opts.create,
      response: { status: 201, schema: opts.schema },
      errors: opts.extraErrors?.create,
    });
  }
  ops.push({
    method: 'get',
    path: item,
    operationId: `retrieve${Noun}`,
    tag,
    summary: `Retrieve ${aNoun}`,
    access: token(opts.read),
    pathParams,
    query: expand,
    response: { status: 200, schema: opts.schema },
  });
  if (opts.update) {
    ops.push({
      method: 'patch',
      path: item,
      operationId: `update${Noun}`,
      tag,
      summary: `Update ${aNoun}`,
      description: 'Send only the fields to change; unknown fields are rejected.',
      access: token(opts.write),
      pathParams,
      body: opts.update,
      response: { status: 200, schema: opts.schema },
      errors: opts.extraErrors?.update,
    });
  }
  if (opts.deleted) {
    ops.push({
      method: 'delete',
      path: item,
      operationId: `delete${Noun}`,
      tag,
      summary: `Delete ${aNoun}`,
      description: 'The object leaves lists, counts and searches.',
      access: token(opts.write),
      pathParams,
      response: { status: 200, schema: opts.deleted },
      errors: opts.extraErrors?.delete,
    });
  }
  return ops;
}

const ACTION_SUMMARIES: Record<DebtAction, string> = {
  ready: 'Mark a debt ready for collection',
  pause: 'Pause collection of a debt',
  resume: 'Resume collection of a paused debt',
  dispute: 'Record that the customer disputes a debt',
  'resolve-dispute': 'Resolve the dispute of a debt',
  settle: 'Settle a debt for less than the balance',
  withdraw: 'Withdraw a debt from collection',
};

/** `POST /debts/{id}/{action}` for every lifecycle action, from the transition table itself. */
function lifecycleActions(): Operation[] {
  return DEBT_ACTIONS.map((action) => {
    const rule = TRANSITIONS[action];
    const camel = action.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
    return {
      method: 'post',
      path: `/debts/{id}/${action}`,
      operationId: `${camel}Debt`,
      tag: 'Debt lifecycle',
      summary: ACTION_SUMMARIES[action],
      description: `Moves the debt from ${rule.from.map((s) => `\`${s}\``).join(', ')} to \`${rule.to}\`; any other status is 409 \`invalid_state_transition\`. The optional \`reason\` is stored on the status.`,
      access: token('debts:write'),
      pathParams: { id: 'deb' },
      body: 'DebtActionReason',
      optionalBody: true,
      response: { status: 200, schema: 'Debt' },
      errors: ['invalid_state_transition'],
    };
  });
}

/** The whole API, in the order the reference lists it. */
export const OPERATIONS: readonly Operation[] = [
  ...resource({
    path: '/organisations',
    idPrefix: 'org',
    tag: 'Organisations',
    noun: 'organisation',
    schema: 'Organisation',
    read: 'organisations:read',
    write: 'organisations:write',
    create: 'OrganisationCreate',
    update: 'OrganisationUpdate',
  }),
  ...resource({
    path: '/customers',
    idPrefix: 'cus',
    tag: 'Customers',
    noun: 'customer',
    schema: 'Customer',
    read: 'customers:read',
    write: 'customers:write',
    create: 'CustomerCreate',
    update: 'CustomerUpdate',
    deleted: 'DeletedCustomer',
    searchFields: CUSTOMER_SEARCH_FIELDS,
  }),
  ...resource({
    path: '/debts',
    idPrefix: 'deb',
    tag: 'Debts',
    noun: 'debt',
    schema: 'Debt',
    read: 'debts:read',
    write: 'debts:write',
    create: 'DebtCreate',
    update: 'DebtUpdate',
    deleted: 'DeletedDebt',
    searchFields: DEBT_SEARCH_FIELDS,
    expandable: true,
    extraErrors: { create: ['resource_missing'], update: ['invalid_state_transition', 'resource_missing'], delete: ['invalid_state_transition'] },
  }),
  ...lifecycleActions(),
  {
    method: 'get',
    path: '/debts/{debtId}/payments',
    operationId: 'listPayments',
    tag: 'Payments',
    summary: "List a debt's payments",
    access: token('debts:read'),
    pathParams: { debtId: 'deb' },
    query: ['page'],
    response: { status: 200, schema: 'Payment', list: true },
  },
  {
    method: 'post',
    path: '/debts/{debtId}/payments',
    operationId: 'createPayment',
    tag: 'Payments',
    summary: 'Record a payment against a debt',
    description:
      "Updates the debt's `summary` in the same transaction; a payment that clears the balance moves the debt to `paid`. Overpayments, another currency and payments on a debt that is not `prepared`, `resumed` or `paused` are rejected and change nothing.",
    access: token('debts:write'),
    pathParams: { debtId: 'deb' },
    body: 'PaymentCreate',
    response: { status: 201, schema: 'Payment' },
    errors: ['invalid_state_transition', 'business_rule_violation'],
  },
  {
    method: 'get',
    path: '/tenants/me',
    operationId: 'retrieveCurrentTenant',
    tag: 'Tenants',
    summary: 'Retrieve the tenant of the calling token',
    description: 'Any valid token may call this, whatever its scopes.',
    access: token(),
    response: { status: 200, schema: 'Tenant' },
  },
  ...resource({
    path: '/webhooks',
    idPrefix: 'wh',
    tag: 'Webhook endpoints',
    noun: 'webhook endpoint',
    schema: 'WebhookEndpoint',
    read: 'webhooks:read',
    write: 'webhooks:write',
    create: 'WebhookEndpointCreate',
    update: 'WebhookEndpointUpdate',
    deleted: 'DeletedWebhookEndpoint',
  }),
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhook endpoints',
    summary: "List an endpoint's deliveries",
    description: 'Each delivery of an event to this endpoint, with every attempt: status, response code, duration, error and next attempt.',
    access: token('webhooks:read'),
    pathParams: { id: 'wh' },
    query: ['page'],
    response: { status: 200, schema: 'WebhookDelivery', list: true },
  },
  {
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'List events',
    description: 'Every change tenants can subscribe to, newest first (the same objects webhooks deliver).',
    access: token('events:read'),
    query: ['page'],
    response: { status: 200, schema: 'Event', list: true },
  },
  {
    method: 'get',
    path: '/events/{id}',
    operationId: 'retrieveEvent',
    tag: 'Events',
    summary: 'Retrieve an event',
    access: token('events:read'),
    pathParams: { id: 'evt' },
    response: { status: 200, schema: 'Event' },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    tag: 'Operations',
    summary: 'Liveness probe',
    access: PUBLIC,
    response: { status: 200, schema: 'ProbeStatus' },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    tag: 'Operations',
    summary: 'Readiness probe',
    description: '200 while the database is reachable and the process is not draining; 503 otherwise.',
    access: PUBLIC,
    response: { status: 200, schema: 'ProbeStatus' },
    errors: ['service_unavailable'],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics',
    description: 'Text exposition format, including `http_request_duration_seconds{method,route,status}`.',
    access: PUBLIC,
    response: { status: 200, schema: 'Text' },
    produces: 'text/plain',
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapiDocument',
    tag: 'Operations',
    summary: 'This OpenAPI 3.1 document',
    access: PUBLIC,
    response: { status: 200, schema: 'OpenApiDocument' },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'apiReference',
    tag: 'Operations',
    summary: 'API reference page (Swagger UI) rendered from this document',
    access: PUBLIC,
    response: { status: 200, schema: 'Text' },
    produces: 'text/html',
  },
];
