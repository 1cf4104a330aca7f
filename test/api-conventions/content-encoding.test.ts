/**
 * Body bytes of every JSON write operation (docs/api.md section 3, "Request bodies"): a body whose
 * `Content-Encoding` does not decode (gzip, deflate or br declared over plain bytes, a truncated
 * gzip) is 400 `content_encoding_invalid`, a body that is not UTF-8 is 400 `invalid_json`, an
 * unknown content coding is 415 with `Accept-Encoding` (RFC 9110 section 15.5.16); each names the
 * problem and changes nothing. The operations come from `/openapi.json`, so a new one is covered
 * without an edit; the compressed bytes are made by node:zlib.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { API_URL, closeHarness, signedInTenant } from '../support/harness.js';

type Json = Record<string, any>;

afterAll(closeHarness);

const json = Buffer.from('{"name":"Encoded Ltd"}');
/** A gzip stream cut in the middle (its trailer and part of its data missing). */
const truncatedGzip = gzipSync(Buffer.from(JSON.stringify({ name: 'Truncated Ltd', metadata: { note: 'x'.repeat(200) } }))).subarray(0, 30);
/** `{"name":"…"}` with 0xFF 0xFE inside the string: bytes no UTF-8 text contains. */
const notUtf8 = Buffer.concat([Buffer.from('{"name":"Bad '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' Ltd"}')]);

/** A concrete URL for a documented path: each `{param}` replaced by a well-formed unknown id. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'deb_000000000000000000000000');

let token: string;
/** Every write operation whose body is JSON (or none, which takes `{}`): not uploads, not providers' callbacks. */
let writes: Array<{ method: 'post' | 'patch' | 'put' | 'delete'; path: string }>;

beforeAll(async () => {
  ({ token } = await signedInTenant());
  const doc = (await request(API_URL).get('/openapi.json').expect(200)).body as Json;
  writes = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!['post', 'patch', 'put', 'delete'].includes(method) || op.security.length === 0) continue;
      if (op.requestBody && !op.requestBody.content['application/json']) continue;
      writes.push({ method: method as 'post', path });
    }
  }
});

const send = (method: 'post' | 'patch' | 'put' | 'delete', path: string, body: Buffer, encoding?: string) => {
  // `serialize` keeps superagent from writing the Buffer as JSON (`{"type":"Buffer",…}`): the bytes go as they are.
  const agent = request(API_URL);
  const req = agent[method](path)
    .set('Authorization', `Bearer ${token}`)
    .set('Content-Type', 'application/json')
    .serialize((b: unknown) => b as string);
  return (encoding ? req.set('Content-Encoding', encoding) : req).send(body);
};

/** The tenant's event count: every accepted write records an event, so an unchanged count means nothing was written. */
const eventCount = async () => (await request(API_URL).get('/events?limit=1').set('Authorization', `Bearer ${token}`).expect(200)).headers['x-total-count'];

describe('a body that does not decode as its Content-Encoding says', () => {
  const cases: Array<[string, Buffer, string, RegExp]> = [
    ['gzip over plain bytes', json, 'gzip', /not valid gzip data/],
    ['deflate over plain bytes', json, 'deflate', /not valid deflate data/],
    ['br over plain bytes', json, 'br', /not valid br data/],
    ['a truncated gzip', truncatedGzip, 'gzip', /not valid gzip data/],
  ];

  test('the table covers the JSON write operations', () => {
    expect(writes.length).toBeGreaterThanOrEqual(58);
  });

  test.each(cases)('%s is 400 content_encoding_invalid on every JSON write operation, nothing changed', async (_name, body, encoding, message) => {
    const before = await eventCount();
    const answers: string[] = [];
    for (const { method, path } of writes) {
      const res = await send(method, concrete(path), body, encoding);
      answers.push(`${method} ${path} ${res.status} ${res.body.code} ${message.test(res.body.message ?? '')}`);
    }
    expect(answers).toEqual(writes.map(({ method, path }) => `${method} ${path} 400 content_encoding_invalid true`));
    expect(await eventCount()).toBe(before);
  });
});

describe('a body that is not UTF-8', () => {
  test('plain or gzip-compressed, it is 400 invalid_json naming UTF-8 on every JSON write operation, nothing changed', async () => {
    const before = await eventCount();
    const answers: string[] = [];
    for (const { method, path } of writes) {
      for (const [body, encoding] of [
        [notUtf8, undefined],
        [gzipSync(notUtf8), 'gzip'],
      ] as const) {
        const res = await send(method, concrete(path), body, encoding);
        answers.push(`${method} ${path} ${encoding} ${res.status} ${res.body.code} ${/UTF-8/.test(res.body.message ?? '')}`);
      }
    }
    expect(answers).toEqual(writes.flatMap(({ method, path }) => [undefined, 'gzip'].map((e) => `${method} ${path} ${e} 400 invalid_json true`)));
    expect(await eventCount()).toBe(before);
  });
});

describe('content codings', () => {
  test('gzip, deflate and br bodies that decode are accepted', async () => {
    for (const [encode, encoding] of [
      [gzipSync, 'gzip'],
      [deflateSync, 'deflate'],
      [brotliCompressSync, 'br'],
    ] as const) {
      const res = await send('post', '/organisations', encode(Buffer.from(JSON.stringify({ name: `${encoding} Ltd` }))), encoding).expect(201);
      expect(res.body.name).toBe(`${encoding} Ltd`);
    }
  });

  test('an unknown content coding is 415 naming it, with Accept-Encoding listing those the API decodes (RFC 9110 section 15.5.16)', async () => {
    const before = await eventCount();
    for (const encoding of ['compress', 'x-unknown']) {
      const res = await send('post', '/organisations', json, encoding).expect(415);
      expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'unsupported_media_type' });
      expect(res.body.message).toContain(encoding);
      expect(res.headers['accept-encoding']).toMatch(/^gzip, deflate, br/);
    }
    expect(await eventCount()).toBe(before);
  });
});
