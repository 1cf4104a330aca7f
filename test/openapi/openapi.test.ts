/**
 * The OpenAPI 3.1 document at `/openapi.json`: valid per a standard validator, covering exactly
 * the routes Express registered, and agreeing with what the running API enforces and returns
 * (documented scopes are required, documented required fields are checked, real responses match
 * the documented schemas, error codes come from the registry).
 */
import request from 'supertest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ERROR_CODES } from '@dms/errors';
import { OPERATOR_SCOPES, SCOPES } from '@dms/scopes';
import { API_URL, SERVICE_ENV, closeHarness, newTenant, seedParties, signedInTenant, tokenFor, apiAs } from '../support/harness.js';
import { runScript } from '../support/run-script.js';
import { newTestClient } from '../test-mode/support.js';
import { upload } from '../imports/support.js';

type Json = Record<string, any>;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;

let doc: Json;
const operations: Array<{ method: string; path: string; op: Json }> = [];

beforeAll(async () => {
  const res = await request(API_URL).get('/openapi.json').expect(200);
  doc = res.body;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) operations.push({ method, path, op });
  }
});
afterAll(closeHarness);

/** A concrete URL for a documented path: each `{param}` replaced by a well-formed unknown id. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'deb_000000000000000000000000');

describe('the document', () => {
  test('is served without a token, as JSON, with a Request-Id', async () => {
    const res = await request(API_URL).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('points at the API and at the issuer: servers and the OAuth 2.0 client-credentials scheme with every scope', () => {
    expect(doc.servers).toEqual([{ url: SERVICE_ENV.PUBLIC_BASE_URL, 'x-internal': false }]);
    const flow = doc.components.securitySchemes.oauth2.flows.clientCredentials;
    expect(flow.tokenUrl).toBe(`${SERVICE_ENV.AUTH_ISSUER}/oauth/token`);
    expect(Object.keys(flow.scopes)).toEqual([...SCOPES, ...OPERATOR_SCOPES]);
  });

  test('lists exactly the error codes of the registry, with their statuses', () => {
    expect(doc.components.schemas.Error.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
    for (const { op } of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400) continue;
        const codes: string[] = response.content['application/json'].schema.allOf[1].properties.code.enum;
        for (const code of codes) expect([code, ERROR_CODES[code as keyof typeof ERROR_CODES].status]).toEqual([code, Number(status)]);
      }
    }
  });
});

describe('coverage of the routes', () => {
  test('every route Express registered is documented, and every documented operation is a route', async () => {
    // The router stack is walked in a child process: the app's CommonJS dependencies load ESM
    // modules, which Node does natively and Jest's module runtime does not.
    const { stdout } = await runScript('services/api/dist/check-routes.js', []);
    const report = JSON.parse(stdout) as { routes: string[]; undocumented: string[]; missing: string[]; duplicated: string[] };
    expect(report.routes.length).toBeGreaterThan(30);
    expect(report).toMatchObject({ undocumented: [], missing: [], duplicated: [] });
    // And what is served is what the registry says.
    const documented = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect([...documented].sort()).toEqual([...report.routes].sort());
  });

  test('covers every endpoint of docs/api.md sections 3 to 7', () => {
    const documented = new Set(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`));
    const contract = [
      'GET /organisations',
      'POST /organisations',
      'GET /organisations/{id}',
      'PATCH /organisations/{id}',
      'GET /customers',
      'POST /customers',
      'GET /customers/search',
      'GET /customers/{id}',
      'PATCH /customers/{id}',
      'DELETE /customers/{id}',
      'GET /debts',
      'POST /debts',
      'GET /debts/search',
      'GET /debts/{id}',
      'PATCH /debts/{id}',
      'DELETE /debts/{id}',
      ...['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw'].map((a) => `POST /debts/{id}/${a}`),
      'GET /debts/{debtId}/payments',
      'POST /debts/{debtId}/payments',
      'GET /tenants/me',
      'GET /webhooks',
      'POST /webhooks',
      'GET /webhooks/{id}',
      'PATCH /webhooks/{id}',
      'DELETE /webhooks/{id}',
      'GET /webhooks/{id}/deliveries',
      'GET /events',
      'GET /events/{id}',
      'GET /openapi.json',
      'GET /docs',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
    ];
    expect(contract.filter((c) => !documented.has(c))).toEqual([]);
  });
});

describe('parameters and headers', () => {
  test('lists and searches document limit/after/before and the pagination headers', () => {
    const lists = operations.filter((o) => o.op.responses['200']?.headers?.['X-Total-Count']);
    expect(lists.map((o) => o.path).sort()).toEqual(
      [
        '/communication_templates',
        '/communication_templates/{id}/versions',
        '/customers',
        '/customers/search',
        '/customers/{customerId}/contact_details',
        // docs/api.md section 18
        '/customers/{id}/access_log',
        '/debts',
        '/debts/search',
        // docs/api.md section 15
        '/debts/{debtId}/contact-details',
        '/organisations/{organisationId}/payments',
        '/organisations/{organisationId}/payments/search',
        '/payment-plans',
        '/debts/{debtId}/payments',
        '/events',
        '/organisations',
        '/organisations/{organisationId}/contact_details',
        '/webhooks',
        '/webhooks/{id}/deliveries',
        // docs/api.md sections 8 and 9
        '/debts/{debtId}/invoices',
        '/debts/{debtId}/invoices/search',
        '/debts/{debtId}/line_items',
        '/debts/{debtId}/payment_plans',
        '/debts/{debtId}/payments/search',
        '/payment_plans',
        '/payments',
        '/payments/search',
        // docs/api.md section 14
        '/payouts',
        '/payouts/search',
        '/payouts/{id}/items',
        // docs/api.md section 18
        '/proposals',
        // docs/api.md section 13
        '/communications',
        '/communications/search',
        '/debts/{debtId}/communications',
        // docs/api.md section 16
        '/imports',
        '/imports/{id}/errors',
        // docs/api.md section 18
        '/debts/{debtId}/income_and_expenditures',
      ].sort(),
    );
    for (const { op } of lists) {
      const refs = op.parameters.map((p: Json) => p.$ref ?? p.name);
      expect(refs).toEqual(expect.arrayContaining(['#/components/parameters/limit', '#/components/parameters/after', '#/components/parameters/before']));
      expect(Object.keys(op.responses['200'].headers)).toEqual(
        expect.arrayContaining(['X-Page-Items', 'Link', 'RateLimit', 'RateLimit-Policy', 'Request-Id', 'Api-Version']),
      );
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '429']));
    }
    for (const path of ['/debts/search', '/customers/search']) {
      expect(doc.paths[path].get.parameters.find((p: Json) => p.name === 'query').required).toBe(true);
    }
    for (const path of ['/debts', '/debts/search', '/debts/{id}']) {
      expect(doc.paths[path].get.parameters.some((p: Json) => p.$ref === '#/components/parameters/expand' || p.name === 'expand[]')).toBe(true);
    }
    // Other resources expand other relations (docs/api.md section 10): each states its own values.
    const expandOf = (path: string, method = 'get') =>
      doc.paths[path][method].parameters
        .map((p: Json) => (p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1)] : p))
        .find((p: Json) => p.name === 'expand[]')?.schema.items.anyOf[0].enum;
    expect(expandOf('/payment_plans/{id}')).toEqual(['debt', 'payments']);
    expect(expandOf('/debts/{debtId}/invoices')).toEqual(['line_items', 'debt']);
    expect(expandOf('/payments/{id}')).toEqual(['debt', 'payment_plan']);
    expect(expandOf('/customers/{id}')).toEqual(['debts']);
    expect(doc.paths['/debts/{id}/pause'].post.parameters.some((p: Json) => p.$ref === '#/components/parameters/expand' || p.name === 'expand[]')).toBe(true);
    expect(expandOf('/debts/{id}')).toEqual(['customer', 'organisation', 'payments', 'line_items', 'invoices', 'payment_plans', 'income_and_expenditures']);
  });

  test('every POST and PATCH takes Idempotency-Key and documents Idempotent-Replayed, 409 and 422', () => {
    const writes = operations.filter((o) => o.method === 'post' || o.method === 'patch');
    expect(writes.length).toBeGreaterThanOrEqual(15);
    for (const { op } of writes) {
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      const success = op.responses['200'] ?? op.responses['201'];
      expect(success.headers['Idempotent-Replayed']).toBeDefined();
      expect(op.responses['409'].content['application/json'].schema.allOf[1].properties.code.enum).toContain('idempotency_key_in_use');
      expect(op.responses['422'].content['application/json'].schema.allOf[1].properties.code.enum).toContain('idempotency_key_reused');
    }
  });

  test('429 documents Retry-After; token operations document Api-Version and their scope', () => {
    for (const { op } of operations) {
      if (op.security.length === 0) continue;
      expect(op.responses['429'].headers['Retry-After']).toBeDefined();
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/ApiVersion' });
      for (const scope of op.security[0].oauth2) expect([...SCOPES, ...OPERATOR_SCOPES]).toContain(scope);
    }
  });
});

describe('agreement with the running API', () => {
  test('the documented scope of every operation is the one enforced', async () => {
    const tenant = await newTenant();
    // Test helpers exist only for test clients (docs/api.md section 15).
    const testClient = await newTestClient(tenant.tenantId);
    const tokens = new Map<string, string>();
    for (const { method, path, op } of operations) {
      const scope: string | undefined = op.security[0]?.oauth2[0];
      if (!scope) continue;
      // A token with every scope but the documented one.
      const key = `${scope} ${op['x-test-only'] === true}`;
      const owner = op['x-test-only'] ? testClient : tenant;
      if (!tokens.has(key)) tokens.set(key, await tokenFor(owner, { scope: SCOPES.filter((s) => s !== scope).join(' ') }));
      const res = await apiAs(tokens.get(key)!)[method === 'delete' ? 'delete' : (method as 'get' | 'post' | 'patch')](concrete(path), {});
      expect([`${method} ${path}`, res.status, res.body.code]).toEqual([`${method} ${path}`, 403, 'insufficient_scope']);
    }
  });

  test('the documented required fields of every create body are enforced', async () => {
    const { api: liveApi, tenant } = await signedInTenant();
    const testApi = apiAs(await tokenFor(await newTestClient(tenant.tenantId)));
    const schemas = doc.components.schemas;
    // JSON bodies (a multipart upload, POST /imports, is checked in test/imports).
    for (const { path, op } of operations.filter(
      (o) => o.method === 'post' && o.op.requestBody?.content?.['application/json'] && o.op.requestBody.required && !o.path.includes('{'),
    )) {
      const schema = schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()];
      const api = op['x-test-only'] ? testApi : liveApi;
      const res = await api.post(path, {}).expect(400);
      expect(res.body.code).toBe('validation_failed');
      const params = (res.body.errors ?? []).map((e: Json) => e.param);
      // Section 10 made customer `kind` optional: a create body may have no required field left.
      expect([path, params]).toEqual([path, expect.arrayContaining(schema.required ?? [])]);
      const unknown = await api.post(path, { not_a_documented_field: 1 }).expect(400);
      expect(unknown.body.errors.map((e: Json) => e.param)).toContain('not_a_documented_field');
    }
  });

  test('real responses match the documented schemas', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const check = (schemaRef: string, value: unknown) => {
      const validate = ajv.getSchema(`openapi.json${schemaRef}`)!;
      expect([schemaRef, validate(value) ? [] : validate.errors]).toEqual([schemaRef, []]);
    };
    const responseSchema = (method: string, path: string, status: string) =>
      `#/paths/${path.replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D')}/${method}/responses/${status}/content/application~1json/schema`;

    const { api } = await signedInTenant();
    const { organisationId, customerId } = await seedParties(api);
    const debt = await api
      .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 12_500 } })
      .expect(201);
    check(responseSchema('post', '/debts', '201'), debt.body);
    check(responseSchema('get', '/debts', '200'), (await api.get('/debts?expand[]=customer&expand[]=organisation').expect(200)).body);
    check(responseSchema('get', '/debts/{id}', '200'), (await api.get(`/debts/${debt.body.id}`).expect(200)).body);
    check(responseSchema('get', '/organisations', '200'), (await api.get('/organisations').expect(200)).body);
    check(responseSchema('get', '/customers/{id}', '200'), (await api.get(`/customers/${customerId}`).expect(200)).body);
    check(responseSchema('get', '/tenants/me', '200'), (await api.get('/tenants/me').expect(200)).body);
    const missing = await api.get('/debts/deb_000000000000000000000000').expect(404);
    check(responseSchema('get', '/debts/{id}', '404'), missing.body);
    const invalid = await api.post('/debts', {}).expect(400);
    check(responseSchema('post', '/debts', '400'), invalid.body);
  });

  test('every success status an operation answers is documented: POST /imports is 201 for a new file, 200 for the same file again', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const documented = (status: number, body: unknown) => {
      const response = doc.paths['/imports'].post.responses[String(status)];
      expect([status, response?.content['application/json'].schema]).toEqual([status, { $ref: '#/components/schemas/Import' }]);
      const validate = ajv.getSchema('openapi.json#/components/schemas/Import')!;
      expect(validate(body) ? [] : validate.errors).toEqual([]);
    };
    const { api } = await signedInTenant();
    const file = 'account_number,reason\nNONE-1,PIF\n';
    const created = await upload(api, 'closure', file);
    expect(created.status).toBe(201);
    documented(created.status, created.body);
    const again = await upload(api, 'closure', file);
    expect([again.status, again.body.id]).toEqual([200, created.body.id]);
    documented(again.status, again.body);
  });

  test('answers in the older version 2025-04-01 match the shapes documented for it, those of the newest version theirs', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const { api, token } = await signedInTenant();
    const { organisationId, customerId } = await seedParties(api);
    const debt = (
      await api.post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 900 } }).expect(201)
    ).body;
    await api.post('/webhooks', { url: 'https://hooks.example.com/dms', enabled_events: ['debt.created'] }).expect(201);
    const old = (path: string) => request(API_URL).get(path).set('Authorization', `Bearer ${token}`).set('Api-Version', '2025-04-01').expect(200);
    const checked: string[] = [];
    for (const [path, concretePath] of [
      ['/debts/{id}', `/debts/${debt.id}`],
      ['/debts', '/debts'],
      ['/debts/{debtId}/line_items', `/debts/${debt.id}/line_items`],
      ['/webhooks', '/webhooks'],
      ['/events', '/events'],
    ] as const) {
      const pointer = `openapi.json#/paths/${path.replaceAll('/', '~1')}/get/responses/200`;
      const documented = doc.paths[path].get.responses['200']['x-api-versions']?.['2025-04-01'];
      const validate = documented ? ajv.compile({ $ref: `${pointer}/x-api-versions/2025-04-01/schema` }) : undefined;
      const body = (await old(concretePath)).body;
      const newest = (await api.get(concretePath).expect(200)).body;
      const validateNewest = ajv.compile({ $ref: `${pointer}/content/application~1json/schema` });
      checked.push(
        `${path} ${validate ? validate(body) || JSON.stringify(validate.errors) : 'undocumented'} ${validateNewest(newest) || JSON.stringify(validateNewest.errors)}`,
      );
    }
    expect(checked).toEqual(['/debts/{id}', '/debts', '/debts/{debtId}/line_items', '/webhooks', '/events'].map((p) => `${p} true true`));
  });

  test('a URL over the header limit is the documented 431 on every operation', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const answers: string[] = [];
    for (const { method, path, op } of operations) {
      const res = await fetch(`${API_URL}${concrete(path)}?q=${'a'.repeat(20_000)}`, { method: method.toUpperCase() });
      const body = await res.json();
      const schema = op.responses[String(res.status)]?.content?.['application/json']?.schema;
      const validate = schema
        ? ajv.compile({ $ref: `openapi.json#/paths/${path.replaceAll('/', '~1')}/${method}/responses/${res.status}/content/application~1json/schema` })
        : undefined;
      answers.push(`${method} ${path} ${res.status} ${validate ? validate(body) : 'undocumented'}`);
    }
    expect(answers).toEqual(operations.map(({ method, path }) => `${method} ${path} 431 true`));
  });
});
