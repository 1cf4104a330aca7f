/**
 * The API's common rules (docs/api.md section 3): the error body, `Request-Id` on every response,
 * `Api-Version`, and strict JSON bodies (unknown fields 400, malformed JSON 400, non-JSON 415,
 * over 1 MiB 413), each leaving nothing changed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { API_URL, apiAs, closeHarness, signedInTenant } from '../support/harness.js';

afterAll(closeHarness);

const REQUEST_ID = /^req_[0-9A-Za-z]{24}$/;

let api: ReturnType<typeof apiAs>;
let token: string;

beforeAll(async () => {
  ({ api, token } = await signedInTenant());
});

/** Organisations of the tenant (to check that a rejected request created nothing). */
async function organisationCount(): Promise<string> {
  return (await api.get('/organisations').expect(200)).headers['x-total-count'] as string;
}

/** Asserts the error body of docs/api.md section 3 and its `Request-Id`. */
function expectError(res: request.Response, status: number, type: string, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ object: 'error', type, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.request_id).toBe(res.headers['request-id']);
  for (const key of Object.keys(res.body)) expect(['object', 'type', 'code', 'message', 'param', 'errors', 'request_id']).toContain(key);
  expect(JSON.stringify(res.body)).not.toMatch(/ at .*\.js:\d+|SELECT |INSERT /);
}

describe('Request-Id', () => {
  test('every response carries a fresh req_ id: success, 4xx, unauthenticated and operational', async () => {
    const responses = await Promise.all([
      api.get('/organisations'),
      api.get('/organisations'),
      api.get('/no-such-path'),
      request(API_URL).get('/debts'),
      request(API_URL).get('/healthz'),
    ]);
    const ids = responses.map((r) => r.headers['request-id']);
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('error format', () => {
  test('an unknown path is 404 not_found', async () => {
    expectError(await api.get('/no-such-path'), 404, 'not_found', 'route_not_found');
  });

  test('an unknown id is 404 resource_missing', async () => {
    expectError(await api.get('/organisations/org_000000000000000000000000'), 404, 'not_found', 'resource_missing');
  });

  test('an id or cursor holding a NUL character (which PostgreSQL text cannot hold) is 404 / 400, not a 500', async () => {
    expectError(await api.get('/debts/%00'), 404, 'not_found', 'resource_missing');
    expectError(await api.get('/events/evt_%00'), 404, 'not_found', 'resource_missing');
    expectError(await api.get('/debts/%00/payments'), 404, 'not_found', 'resource_missing');
    expectError(await api.get('/webhooks/%00/deliveries'), 404, 'not_found', 'resource_missing');
    expectError(await api.post('/debts/%00/ready'), 404, 'not_found', 'resource_missing');
    const cursor = await api.get('/organisations?after=%00');
    expectError(cursor, 400, 'invalid_request_error', 'invalid_cursor');
    expect(cursor.body.param).toBe('after');
  });

  test('a path segment that is not percent-encoded UTF-8 is 400 parameter_invalid, not a 500', async () => {
    expectError(await api.get('/debts/%E0%A4%A'), 400, 'invalid_request_error', 'parameter_invalid');
    expectError(await api.get('/customers/%ED%A0%80'), 400, 'invalid_request_error', 'parameter_invalid');
  });

  test('a date in year 0000 (valid RFC 3339, but no year PostgreSQL knows) is 400 naming the field, and nothing is created', async () => {
    const before = await organisationCount();
    const dob = await api.post('/customers', { kind: 'individual', full_name: 'Year Zero', date_of_birth: '0000-01-01' });
    expectError(dob, 400, 'invalid_request_error', 'validation_failed');
    expect(dob.body.param).toBe('date_of_birth');
    const org = await api.post('/organisations', { name: 'Year Zero' }).expect(201);
    const cus = await api.post('/customers', { kind: 'company', full_name: 'Year Zero Ltd' }).expect(201);
    const debt = await api.post('/debts', {
      customer_id: cus.body.id,
      organisation_id: org.body.id,
      currency: 'GBP',
      breakdown: { principal: 100 },
      start_at: '0000-06-01T00:00:00Z',
    });
    expectError(debt, 400, 'invalid_request_error', 'validation_failed');
    expect(debt.body.param).toBe('start_at');
    expect(Number(await organisationCount())).toBe(Number(before) + 1);
    expect((await api.get('/debts').expect(200)).headers['x-total-count']).toBe('0');
  });

  test('a schema violation is 400 validation_failed naming the field, with every problem in errors', async () => {
    const res = await api.post('/debts', { currency: 'JPY', breakdown: { principal: -1 } });
    expectError(res, 400, 'invalid_request_error', 'validation_failed');
    const params = res.body.errors.map((e: { param: string }) => e.param);
    expect(params).toEqual(expect.arrayContaining(['customer_id', 'organisation_id', 'currency', 'breakdown.principal']));
    expect(params).toContain(res.body.param);
  });
});

describe('Api-Version', () => {
  test('without the header the newest version is used and echoed', async () => {
    const res = await api.get('/organisations').expect(200);
    expect(res.headers['api-version']).toBe('2026-11-01');
  });

  test('a supported version is echoed', async () => {
    const res = await api.get('/organisations').set('Api-Version', '2026-11-01').expect(200);
    expect(res.headers['api-version']).toBe('2026-11-01');
  });

  test.each(['2020-01-01', '2026-11-02', 'latest', '20261101'])('an unknown version (%s) is 400 naming Api-Version', async (version) => {
    const res = await api.get('/organisations').set('Api-Version', version);
    expectError(res, 400, 'invalid_request_error', 'unsupported_api_version');
    expect(res.body.param).toBe('Api-Version');
  });

  test('an unknown version on a write changes nothing', async () => {
    const before = await organisationCount();
    expect((await api.post('/organisations', { name: 'Versioned Ltd' }).set('Api-Version', '1999-01-01')).status).toBe(400);
    expect(await organisationCount()).toBe(before);
  });
});

describe('request bodies', () => {
  const post = (body: string | Buffer, contentType: string) =>
    request(API_URL).post('/organisations').set('Authorization', `Bearer ${token}`).set('Content-Type', contentType).send(body);

  test('an unknown field is rejected with 400 naming it, not ignored', async () => {
    const before = await organisationCount();
    const res = await api.post('/organisations', { name: 'Extra Ltd', colour: 'red' });
    expectError(res, 400, 'invalid_request_error', 'validation_failed');
    expect(res.body.param).toBe('colour');
    expect(await organisationCount()).toBe(before);
  });

  test('malformed JSON is 400 invalid_json', async () => {
    const before = await organisationCount();
    expectError(await post('{"name": "Broken Ltd",', 'application/json'), 400, 'invalid_request_error', 'invalid_json');
    expect(await organisationCount()).toBe(before);
  });

  test('a JSON value that is not an object is 400', async () => {
    for (const body of ['"just a string"', '[{"name":"Array Ltd"}]', 'null']) {
      expect((await post(body, 'application/json')).status).toBe(400);
    }
  });

  test('a body that is not application/json is 415', async () => {
    const before = await organisationCount();
    for (const [body, type] of [
      ['name=Form+Ltd', 'application/x-www-form-urlencoded'],
      ['{"name":"Text Ltd"}', 'text/plain'],
      ['<name>Xml Ltd</name>', 'application/xml'],
    ]) {
      expectError(await post(body!, type!), 415, 'invalid_request_error', 'unsupported_media_type');
    }
    expect(await organisationCount()).toBe(before);
  });

  test('a body over 1 MiB is 413', async () => {
    const before = await organisationCount();
    const big = JSON.stringify({ name: 'Big Ltd', metadata: { blob: 'x'.repeat(1024 * 1024) } });
    expectError(await post(big, 'application/json'), 413, 'invalid_request_error', 'body_too_large');
    expect(await organisationCount()).toBe(before);
  });

  test('application/json with a charset parameter is accepted', async () => {
    const res = await post(JSON.stringify({ name: 'Charset Ltd' }), 'application/json; charset=utf-8');
    expect(res.status).toBe(201);
  });
});

describe('JSON bodies and conditional requests', () => {
  test('a JSON body has its exact length, a weak ETag of its bytes, and If-None-Match with that tag is 304 without a body', async () => {
    await api.post('/organisations').send({ name: 'Tagged Ltd' }).expect(201);
    const res = await api.get('/organisations?limit=5').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text, 'utf8'));
    const tag = createHash('sha1').update(res.text, 'utf8').digest('base64').slice(0, 27);
    expect(res.headers.etag).toBe(`W/"${Buffer.byteLength(res.text, 'utf8').toString(16)}-${tag}"`);

    const cached = await request(API_URL).get('/organisations?limit=5').set('Authorization', `Bearer ${token}`).set('If-None-Match', res.headers.etag!);
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers['content-type']).toBeUndefined();
    const stale = await request(API_URL).get('/organisations?limit=5').set('Authorization', `Bearer ${token}`).set('If-None-Match', 'W/"0-stale"');
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(res.text);
  });
});
