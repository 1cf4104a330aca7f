/**
 * Pagination parameters (docs/api.md section 4), as the query schema of a list validates them:
 * `limit` 1..100 (default 10), `after` and `before` never together, unknown parameters refused;
 * every refusal is a 400 naming its `param`.
 */
import { describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { DEFAULT_LIMIT, MAX_LIMIT, pageQuery, queryParser } from '../../services/api/src/operations/query.js';
import { Type } from '../../libs/domain/src/kernel/schemas.js';

type Query = Record<string, unknown>;

/** The page parameters a list with the `extra` parameters reads from `query`. */
function parsePageParams(query: Query, extra: readonly string[] = []): { limit: number; after?: string; before?: string } {
  const properties = Object.fromEntries(extra.map((name) => [name, Type.Optional(Type.Unsafe<unknown>({}))]));
  const parsed = queryParser<{ limit: number; after?: string; before?: string }>(pageQuery(properties))(query);
  return { limit: parsed.limit, after: parsed.after, before: parsed.before };
}

/** Runs parsePageParams and returns the ApiError it throws. */
function refusal(query: Query, extra?: readonly string[]): ApiError {
  try {
    parsePageParams(query, extra);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    return err as ApiError;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe('limit', () => {
  test('defaults to 10, at most 100', () => {
    expect(DEFAULT_LIMIT).toBe(10);
    expect(MAX_LIMIT).toBe(100);
    expect(parsePageParams({})).toEqual({ limit: 10, after: undefined, before: undefined });
  });

  test.each([
    ['1', 1],
    ['10', 10],
    ['99', 99],
    ['100', 100],
    ['007', 7],
    ['0100', 100],
  ])('accepts %j as %i', (raw, limit) => {
    expect(parsePageParams({ limit: raw }).limit).toBe(limit);
  });

  test.each(['0', '101', '1000', '9999', '10000', '-1', '+5', '1.5', '1e2', 'abc', '', ' 5', '5 ', '0x10', '٣'])('refuses %j', (raw) => {
    expect(refusal({ limit: raw })).toMatchObject({
      code: 'parameter_invalid',
      param: 'limit',
      message: 'limit must be an integer from 1 to 100.',
    });
  });

  test('refuses a repeated or structured limit', () => {
    expect(refusal({ limit: ['5', '6'] })).toMatchObject({ code: 'parameter_invalid', param: 'limit', message: 'limit must be given once, as a string.' });
    expect(refusal({ limit: { a: '1' } })).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });
});

describe('cursors', () => {
  test('after or before is passed through with the limit', () => {
    expect(parsePageParams({ after: 'deb_x', limit: '5' })).toEqual({ limit: 5, after: 'deb_x', before: undefined });
    expect(parsePageParams({ before: 'deb_y' })).toEqual({ limit: 10, after: undefined, before: 'deb_y' });
  });

  test('after and before together are refused, naming before', () => {
    expect(refusal({ after: 'deb_x', before: 'deb_y' })).toMatchObject({ code: 'parameters_exclusive', param: 'before' });
  });

  test.each(['after', 'before'])('an empty %s, or one with U+0000, names no object', (param) => {
    expect(refusal({ [param]: '' })).toMatchObject({ code: 'invalid_cursor', param, message: `${param} must be an object id.` });
    expect(refusal({ [param]: 'deb_\u0000' })).toMatchObject({ code: 'invalid_cursor', param });
  });

  test.each(['after', 'before'])('a repeated %s is refused', (param) => {
    expect(refusal({ [param]: ['deb_a', 'deb_b'] })).toMatchObject({ code: 'parameter_invalid', param });
  });

  test('a cursor that merely looks wrong is left to the list (it may still name an object)', () => {
    expect(parsePageParams({ after: 'not-an-id' }).after).toBe('not-an-id');
  });
});

describe('other parameters', () => {
  test('an unknown parameter is refused by name', () => {
    expect(refusal({ limit: '5', sort: 'asc' })).toMatchObject({ code: 'parameter_invalid', param: 'sort', message: 'Unknown query parameter: sort.' });
  });

  test('parameters the endpoint declares are allowed', () => {
    expect(parsePageParams({ query: 'status:paused', 'expand[]': 'customer', limit: '2' }, ['query', 'expand[]'])).toEqual({
      limit: 2,
      after: undefined,
      before: undefined,
    });
    // Every list takes `query` (docs/api.md section 15); a name no list declares is still refused.
    expect(refusal({ q: 'x:1' }, ['expand[]'])).toMatchObject({ param: 'q' });
  });

  test('inherited property names are not parameters', () => {
    expect(refusal(JSON.parse('{"__proto__": "x"}') as Query)).toMatchObject({ param: '__proto__' });
    expect(refusal({ constructor: 'x' })).toMatchObject({ param: 'constructor' });
  });
});
