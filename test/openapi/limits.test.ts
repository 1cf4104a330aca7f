/**
 * The limits the OpenAPI document states are the ones the API enforces:
 * every string, integer and array a client sends carries its bound, and a sample of each kind
 * answers 2xx at the bound and 400 naming the field one past it. Every operation documents 400
 * `parameter_invalid` and 503 `service_unavailable`; token operations 401 and 429 with the
 * rate-limit headers on every 2xx and 4xx answer, which real answers carry.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { API_URL, closeHarness, seedParties, signedInTenant } from '../support/harness.js';

type Json = Record<string, any>;

let doc: Json;
beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
});
afterAll(closeHarness);

/** `$ref`s of the document resolved (the document's refs are acyclic). */
function resolve(node: unknown): any {
  if (Array.isArray(node)) return node.map(resolve);
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as Json).$ref as string | undefined;
  if (ref)
    return resolve(
      ref
        .slice(2)
        .split('/')
        .reduce((n: Json, k) => n[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc),
    );
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
}

/** Every schema below `node` (JSON Schema keywords only: property names are not schemas). */
function* schemasIn(node: any, at: string): Generator<[string, Json]> {
  if (node === null || typeof node !== 'object') return;
  yield [at, node];
  for (const key of ['items', 'not', 'if', 'then', 'else', 'additionalProperties', 'propertyNames']) yield* schemasIn(node[key], `${at}.${key}`);
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const [i, s] of (node[key] ?? []).entries()) yield* schemasIn(s, `${at}.${key}[${i}]`);
  for (const key of ['properties', 'dependentSchemas']) for (const [name, s] of Object.entries(node[key] ?? {})) yield* schemasIn(s, `${at}.${name}`);
}

const typesOf = (s: Json): unknown[] => (Array.isArray(s.type) ? s.type : [s.type]);

describe('the document states the bounds', () => {
  test('every string, integer and array of a parameter or a request body has its bound', () => {
    const unbounded: string[] = [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const inputs: Array<[string, unknown]> = resolve(op.parameters ?? []).map((p: Json) => [`${p.in} ${p.name}`, p.schema]);
        // A multipart upload's file is bounded by IMPORT_MAX_BYTES (413), its text fields are checked here.
        const content = op.requestBody ? resolve(op.requestBody).content : undefined;
        if (content?.['application/json']) inputs.push(['body', content['application/json'].schema]);
        if (content?.['multipart/form-data']) {
          const { file: _file, ...fields } = resolve(content['multipart/form-data'].schema).properties;
          inputs.push(['body', { type: 'object', properties: fields }]);
        }
        for (const [name, schema] of inputs) {
          for (const [at, s] of schemasIn(schema, name)) {
            const types = typesOf(s);
            const bounded =
              (!types.includes('string') || s.maxLength !== undefined || s.enum || s.const !== undefined) &&
              (!types.includes('integer') || (s.minimum !== undefined && s.maximum !== undefined && ['int32', 'int64'].includes(s.format))) &&
              (!types.includes('array') || s.maxItems !== undefined);
            if (!bounded) unbounded.push(`${method.toUpperCase()} ${path} ${at}`);
          }
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  test('every operation documents 400 parameter_invalid and 503 service_unavailable; token operations 401 and 429 with the rate-limit headers', () => {
    const codes = (r: Json | undefined): string[] => r?.content['application/json'].schema.allOf[1].properties.code.enum ?? [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const where = `${method} ${path}`;
        expect([where, codes(op.responses['400'])]).toEqual([where, expect.arrayContaining(['parameter_invalid'])]);
        expect([where, codes(op.responses['503']), Object.keys(op.responses['503'].headers)]).toEqual([
          where,
          ['service_unavailable'],
          expect.arrayContaining(['Retry-After']),
        ]);
        if (op.security.length === 0) continue;
        expect([where, codes(op.responses['401'])]).toEqual([where, ['invalid_token']]);
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          // A 431 is answered by the HTTP server before any middleware (no rate limiter has run).
          if (Number(status) >= 500 || status === '431') continue;
          expect([where, status, Object.keys(response.headers)]).toEqual([where, status, expect.arrayContaining(['RateLimit', 'RateLimit-Policy'])]);
        }
      }
    }
  });

  test('integers carry their format; the server is declared public', () => {
    expect(doc.servers[0]['x-internal']).toBe(false);
    expect(doc.components.parameters.limit.schema).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, maximum: 100 });
    expect(doc.components.schemas.Debt.properties.summary.properties.amount_total.format).toBe('int64');
  });
});

describe('the API enforces them: the bound passes, one past it is a 400 naming the field', () => {
  test('a string (organisation name, 200), an integer (principal, 10^14), an array (tags, 20) and a map value (metadata, 500)', async () => {
    const { api } = await signedInTenant();
    const parties = await seedParties(api);
    const name = (n: number) => 'n'.repeat(n);
    await api.post('/organisations', { name: name(200) }).expect(201);
    const longName = await api.post('/organisations', { name: name(201) }).expect(400);
    expect(longName.body).toMatchObject({ code: 'validation_failed', param: 'name' });

    const debt = (body: Json) => api.post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', ...body });
    await debt({ breakdown: { principal: 100_000_000_000_000 } }).expect(201);
    expect((await debt({ breakdown: { principal: 100_000_000_000_001 } }).expect(400)).body).toMatchObject({ param: 'breakdown.principal' });

    const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    await debt({ tags: tags(20) }).expect(201);
    expect((await debt({ tags: tags(21) }).expect(400)).body).toMatchObject({ param: 'tags' });

    await api.post('/organisations', { name: 'm', metadata: { k: 'v'.repeat(500) } }).expect(201);
    expect((await api.post('/organisations', { name: 'm', metadata: { k: 'v'.repeat(501) } }).expect(400)).body).toMatchObject({ param: 'metadata.k' });
  });

  test('query parameters: limit (100), a cursor (29 characters), a search query (1,000 characters), expand[] (one of each)', async () => {
    const { api } = await signedInTenant();
    await api.get('/debts?limit=100').expect(200);
    expect((await api.get('/debts?limit=101').expect(400)).body).toMatchObject({ code: 'parameter_invalid', param: 'limit' });

    // 29 characters is an id's length (an unknown one: the cursor error); 30 cannot be one.
    expect((await api.get(`/debts?after=${'x'.repeat(29)}`).expect(400)).body).toMatchObject({ code: 'invalid_cursor', param: 'after' });
    const long = await api.get(`/debts?after=${'x'.repeat(30)}`).expect(400);
    expect(long.body).toMatchObject({ code: 'invalid_cursor', param: 'after' });
    expect(long.body.message).toMatch(/after/);

    const query = (n: number) => `account_number:"${'a'.repeat(n - 'account_number:""'.length)}"`;
    expect(query(1000)).toHaveLength(1000);
    await api.get(`/debts/search?query=${encodeURIComponent(query(1000))}`).expect(200);
    expect((await api.get(`/debts/search?query=${encodeURIComponent(query(1001))}`).expect(400)).body).toMatchObject({
      code: 'invalid_search_query',
      param: 'query',
    });

    // Each relation, or a chain of relations from one (docs/api.md section 15), each at most 200 characters.
    const expand = (doc.paths['/debts'].get.parameters as Array<{ $ref?: string; name?: string }>)
      .map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1)!] : p))
      .find((p: { name?: string }) => p.name === 'expand[]');
    const { items, maxItems } = expand.schema;
    const all = items.anyOf[0].enum as string[];
    expect(maxItems).toBe(Math.max(20, all.length));
    expect(items.maxLength).toBe(200);
    await api.get(`/debts?${all.map((v) => `expand[]=${v}`).join('&')}`).expect(200);
    const over = await api.get(`/debts?${[...all, all[0]].map((v) => `expand[]=${v}`).join('&')}`).expect(400);
    expect(over.body).toMatchObject({ code: 'parameter_invalid', param: 'expand[]' });
  });

  test('answers of token operations carry the rate-limit headers, errors included', async () => {
    const { api } = await signedInTenant();
    for (const res of [
      await api.get('/debts').expect(200),
      await api.get('/debts?limit=0').expect(400),
      await api.get('/debts/deb_000000000000000000000000').expect(404),
    ]) {
      expect(res.headers.ratelimit).toBeDefined();
      expect(res.headers['ratelimit-policy']).toBeDefined();
    }
    const unauthenticated = await request(API_URL).get('/debts').expect(401);
    expect(unauthenticated.headers.ratelimit).toBeDefined();
  });
});
