/**
 * The search language of docs/api.md sections 4 and 10 as seen over HTTP: quoted and bare values,
 * every operator, AND chains, and 400 `invalid_search_query` (param `query`) with the 1-based
 * position of each kind of mistake. (Section 10 made spaces, lower-case `and`, `OR` and `=` valid;
 * those queries are in section10-grammar.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
const ids: Record<string, string> = {};

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  ids.small = (await createDebt(me.api, parties, { breakdown: { principal: 500 }, account_number: 'ACC 1', tags: ['a:b'] })).id;
  ids.mid = (await createDebt(me.api, parties, { breakdown: { principal: 1000 }, account_number: 'say "hi"', tags: ['vip'] })).id;
  ids.big = (await createDebt(me.api, parties, { breakdown: { principal: 5000 }, account_number: 'back\\slash', tags: ['vip', 'late'], currency: 'EUR' })).id;
});

function search(query: string) {
  return me.api.get('/debts/search').query({ query });
}

async function found(query: string): Promise<string[]> {
  const res = await search(query);
  expect(res.status).toBe(200);
  return res.body.data.map((d: { id: string }) => d.id);
}

describe('values', () => {
  test('bare and double-quoted values are the same value', async () => {
    expect(await found('currency:EUR')).toEqual([ids.big]);
    expect(await found('currency:"EUR"')).toEqual([ids.big]);
  });

  test('quoted values may contain spaces, escaped quotes and escaped backslashes', async () => {
    expect(await found('account_number:"ACC 1"')).toEqual([ids.small]);
    expect(await found('account_number:"say \\"hi\\""')).toEqual([ids.mid]);
    expect(await found('account_number:"back\\\\slash"')).toEqual([ids.big]);
  });

  test('bare values may contain colons (timestamps, tags)', async () => {
    expect(await found('tag:a:b')).toEqual([ids.small]);
  });

  test('spaces around an operator are allowed', async () => {
    expect(await found('amount_remaining >= 1000')).toEqual([ids.big, ids.mid]);
  });
});

describe('operators', () => {
  test.each([
    ['amount_remaining:1000', ['mid']],
    ['amount_remaining>1000', ['big']],
    ['amount_remaining>=1000', ['big', 'mid']],
    ['amount_remaining<1000', ['small']],
    ['amount_remaining<=1000', ['mid', 'small']],
  ])('%s', async (query, names) => {
    expect(await found(query)).toEqual(names.map((n) => ids[n]));
  });
});

describe('AND chains', () => {
  test('every term must hold', async () => {
    expect(await found('tag:vip AND amount_remaining<2000')).toEqual([ids.mid]);
    expect(await found('tag:vip AND tag:late AND currency:EUR AND amount_remaining>0')).toEqual([ids.big]);
    expect(await found('tag:vip AND currency:USD')).toEqual([]);
  });

  test('the same field may appear twice (a range)', async () => {
    expect(await found('amount_remaining>500 AND amount_remaining<5000')).toEqual([ids.mid]);
  });
});

describe('errors say where', () => {
  test.each([
    ['', 'Expected a field name', 1],
    ['   ', 'Expected a field name', 4],
    ['status', 'Expected an operator', 7],
    ['status:', "Expected a value after ':'", 8],
    ['status:prepared AND', 'Expected a field name', 20],
    ['status:prepared currency:GBP OR tag:vip', 'AND and OR cannot be mixed', 30],
    ['status:prepared and currency:GBP or tag:vip', 'AND and OR cannot be mixed', 34],
    ['AND status:prepared', 'Expected a field name', 1],
    ['status:"prepared', 'Unterminated quoted value', 8],
    ['status:"pre\\pared"', 'Invalid escape', 12],
    ['status:pre"pared', 'inside a bare value', 11],
    ['(status:prepared)', "Unexpected character '('", 1],
    ['status!prepared', "Unexpected character '!'", 7],
    ['"status":prepared', 'Expected a field name', 1],
    ['colour:red', "Unknown field 'colour'", 1],
    ['currency:GBP AND colour:red', "Unknown field 'colour'", 18],
    ['status>prepared', "Operator '>' is not allowed for 'status'", 7],
    ['tag<=x', "Operator '<=' is not allowed", 4],
    ['amount_remaining>ten', 'Expected an integer', 18],
    ['amount_remaining:1.5', 'Expected an integer', 18],
    ['created_at>yesterday', 'RFC 3339', 12],
    ['created_at>2026-02-30', 'RFC 3339', 12],
    ['created_at<2026-11-01T25:00:00Z', 'RFC 3339', 12],
    ['updated_at:2026-11-01T10:00:00', 'RFC 3339', 12],
    ['account_number:a\u0000b', 'Control character', 17],
    ['account_number:"a\u0000b"', 'Control character', 18],
    ['account_number:a\u0007', 'Control character', 17],
  ])('%j -> %s at position %d', async (query, message, position) => {
    const res = await search(query).expect(400);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'invalid_search_query', param: 'query' });
    expect(res.body.message).toContain(message);
    expect(res.body.message).toMatch(new RegExp(`at position ${position}\\.$`));
  });

  test('queries over 1000 characters and over 20 terms are refused', async () => {
    expect((await search(`account_number:${'x'.repeat(1000)}`).expect(400)).body.code).toBe('invalid_search_query');
    const many = Array.from({ length: 21 }, () => 'currency:GBP').join(' AND ');
    expect((await search(many).expect(400)).body.message).toContain('at most 20 terms');
  });

  test('a missing or repeated query parameter is 400 on query', async () => {
    expect((await me.api.get('/debts/search').expect(400)).body).toMatchObject({ code: 'parameter_invalid', param: 'query' });
    expect((await me.api.get('/debts/search?query=currency:GBP&query=currency:EUR').expect(400)).body.param).toBe('query');
  });

  test('unknown query parameters are 400 naming them', async () => {
    expect((await me.api.get('/debts/search?query=currency:GBP&sort=asc').expect(400)).body.param).toBe('sort');
  });
});
