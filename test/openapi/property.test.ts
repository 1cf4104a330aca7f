/**
 * Property test of the API against its own OpenAPI document: for every operation, requests built
 * by fast-check from the document's schemas (parameters and bodies, mostly valid, often at or just
 * past a bound; test/support/schema-arbitrary.ts) are sent with a valid token and real ids of the
 * tenant's objects, and every answer must be documented: its status listed for the operation,
 * its JSON body valid against the schema of that status, never a 5xx. Operator routes are called
 * with an operator's token naming the tenant. Reads run first, then writes, then deletes.
 */
import request from 'supertest';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { API_URL, closeHarness, newOperator, newTenant, seedParties, tokenFor, apiAs } from '../support/harness.js';
import { arbitraryOf, resolver, type SchemaContext } from '../support/schema-arbitrary.js';

type Json = Record<string, any>;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;

/** Requests per operation (about 90 operations: some 500 requests, well under a minute). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 5);

let doc: Json;
let ajv: Ajv2020;
const ids = new Map<string, string>();
let tenantToken: string;
let operatorToken: string;
let tenantId: string;

beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');

  const tenant = await newTenant();
  tenantId = tenant.tenantId;
  tenantToken = await tokenFor(tenant);
  const operator = await newOperator();
  operatorToken = await tokenFor(operator);
  const api = apiAs(tenantToken);
  // Real objects of every kind the paths name, so requests reach the handlers, not only the 404.
  const { organisationId, customerId } = await seedParties(api);
  const contact = await api.post(`/customers/${customerId}/contact_details`, { type: 'email', value: 'ada@example.com' }).expect(201);
  const debt = await api
    .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 50_000 } })
    .expect(201);
  await api.post(`/debts/${debt.body.id}/ready`).expect(200);
  const payment = await api.post(`/debts/${debt.body.id}/payments`, { amount: 1000, currency: 'GBP' }).expect(201);
  const item = await api.post(`/debts/${debt.body.id}/line_items`, { kind: 'fee', amount: 500 }).expect(201);
  const invoice = await api.post(`/debts/${debt.body.id}/invoices`, { reference: 'INV-1' }).expect(201);
  const plan = await api.post(`/debts/${debt.body.id}/payment_plans`, { frequency: 'monthly', start_on: '2999-01-01', instalment_count: 6 }).expect(201);
  const hook = await api.post('/webhooks', { url: 'https://93.184.216.34/hook', enabled_events: ['*'] }).expect(201);
  const event = (await api.get('/events?limit=1').expect(200)).body.data[0];
  for (const [prefix, id] of Object.entries({
    org: organisationId,
    cus: customerId,
    cd: contact.body.id,
    deb: debt.body.id,
    pay: payment.body.id,
    li: item.body.id,
    inv: invoice.body.id,
    pp: plan.body.id,
    wh: hook.body.id,
    evt: event.id,
    ten: tenantId,
  })) {
    ids.set(prefix, id as string);
  }
});
afterAll(closeHarness);

interface Operation {
  method: string;
  path: string;
  op: Json;
}

/** One generated request: path ids, query, headers and body. */
interface Generated {
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body: unknown;
}

function requestArbitrary({ op }: Operation): fc.Arbitrary<Generated> {
  const resolve = resolver(doc);
  const ctx: SchemaContext = { resolve, idFor: (prefix) => ids.get(prefix) };
  const params = ((op.parameters ?? []) as Json[]).map(resolve);
  const path = Object.fromEntries(
    params
      .filter((p) => p.in === 'path')
      .map((p) => {
        const prefix = /\(`(\w+)_…`\)/.exec(p.description as string)?.[1] ?? 'x';
        const real = ids.get(prefix) ?? `${prefix}_000000000000000000000000`;
        return [
          p.name as string,
          fc.oneof({ arbitrary: fc.constant(real), weight: 6 }, fc.constant(`${prefix}_000000000000000000000000`), fc.constant('%E0%A4%A')),
        ];
      }),
  );
  const query = params
    .filter((p) => p.in === 'query')
    .map((p) => {
      const value = arbitraryOf(p.schema as Json, ctx).map((v) =>
        (Array.isArray(v) ? v.map(String) : [String(v)]).map((x) => [p.name as string, x] as [string, string]),
      );
      // An optional parameter is left out three times in four.
      return p.required ? value : fc.oneof({ arbitrary: fc.constant([] as Array<[string, string]>), weight: 3 }, { arbitrary: value, weight: 1 });
    });
  const apiVersion = params.find((p) => p.name === 'Api-Version');
  const body = op.requestBody
    ? arbitraryOf(op.requestBody.content['application/json'].schema as Json, ctx)
    : fc.constantFrom(undefined, {}, { unknown: 1 }, [1]);
  return fc.record({
    path: fc.record(path),
    query: fc.tuple(...query).map((q) => q.flat()),
    headers: apiVersion
      ? fc.oneof(
          { arbitrary: fc.constant({}), weight: 3 },
          fc.constantFrom([...(apiVersion.schema.enum as string[])].sort().at(-1)!, '1999-01-01').map((v) => ({ 'Api-Version': v })),
        )
      : fc.constant({}),
    body: op.requestBody?.required === false ? fc.option(body, { nil: undefined }) : body,
  });
}

/** The JSON pointer of an answer's schema in the document. */
const pointer = (method: string, path: string, status: string) =>
  `openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D')}/${method}/responses/${status}/content/application~1json/schema`;

async function send(o: Operation, g: Generated): Promise<request.Response> {
  const url =
    o.path.replace(/\{(\w+)\}/g, (_, name: string) => g.path[name] ?? '') +
    (g.query.length ? `?${g.query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : '');
  const operator = o.path.startsWith('/operator/');
  let req = request(API_URL)[o.method as 'get'](url);
  if (o.op.security.length) req = req.set('Authorization', `Bearer ${operator ? operatorToken : tenantToken}`);
  if (operator) req = req.set('Tenant-Id', tenantId);
  for (const [k, v] of Object.entries(g.headers)) req = req.set(k, v);
  return g.body === undefined ? req : req.send(g.body as object);
}

function check(o: Operation, res: request.Response): string | undefined {
  const where = `${o.method.toUpperCase()} ${o.path} → ${res.status}`;
  if (res.status >= 500) return `${where}: ${JSON.stringify(res.body)}`;
  const documented = o.op.responses[String(res.status)] as Json | undefined;
  if (!documented) return `${where} is not documented (${JSON.stringify(res.body)})`;
  if (!documented.content?.['application/json'] || !/json/.test(res.headers['content-type'] ?? '') || o.path === '/openapi.json') return undefined;
  const validate = ajv.getSchema(pointer(o.method, o.path, String(res.status)))!;
  return validate(res.body) ? undefined : `${where}: body not as documented: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body).slice(0, 500)}`;
}

test('every operation answers generated and boundary requests as its document says', async () => {
  const order = { get: 0, post: 1, put: 1, patch: 1, delete: 2 } as Record<string, number>;
  const operations: Operation[] = Object.entries<Json>(doc.paths)
    .flatMap(([path, item]) => Object.entries<Json>(item).map(([method, op]) => ({ method, path, op })))
    .sort((a, b) => order[a.method]! - order[b.method]!);
  expect(operations.length).toBeGreaterThan(80);
  const problems: string[] = [];
  const succeeded = new Set<string>();
  const statuses = new Map<number, number>();
  // A multipart upload (POST /imports) is driven by test/imports, its bad inputs included.
  for (const o of operations.filter((x) => !x.op.requestBody?.content?.['multipart/form-data'])) {
    await fc
      .assert(
        fc.asyncProperty(requestArbitrary(o), async (g) => {
          const res = await send(o, g);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status < 300) succeeded.add(`${o.method} ${o.path}`);
          const problem = check(o, res);
          if (problem) problems.push(`${problem}\n  request: ${JSON.stringify(g).slice(0, 800)}`);
          return problem === undefined;
        }),
        { numRuns: RUNS, endOnFailure: true },
      )
      .catch(() => undefined); // collected in `problems`, so one operation's failure does not hide the others'
  }
  expect(problems).toEqual([]);
  // The requests reach the handlers: most operations answered at least one of them with a 2xx.
  if (process.env.PROPERTY_DEBUG)
    console.log(
      JSON.stringify({
        statuses: [...statuses],
        failedAll: operations.filter((o) => !succeeded.has(`${o.method} ${o.path}`)).map((o) => `${o.method} ${o.path}`),
      }),
    );
  // (Random bodies mostly fail validation, and many operations need an object in a given state.)
  expect(succeeded.size).toBeGreaterThan(operations.length / 4);
}, 180_000);
