/**
 * Unit tests of the operation mechanism (no database): query parsing by schema, route ordering,
 * metrics labels by template, and the compiled response serializers.
 */
import { describe, expect, test } from '@jest/globals';
import { Type } from '../../../libs/domain/src/kernel/schemas.js';
import { pageQuery, querySchema, expandProperty, queryParser, EXPAND_PARAM } from '../../../services/api/src/operations/query.js';
import { bySpecificity, expressPath } from '../../../services/api/src/operations/mount.js';
import { routeLabeler } from '../../../services/api/src/operations/route-label.js';
import { compileSerializer, inlineRefs, listSchema } from '../../../services/api/src/operations/serializer.js';
import type { AnyOperation } from '../../../services/api/src/operations/operation.js';

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const err = e as { code: string; param?: string };
    return { code: err.code, param: err.param };
  }
  throw new Error('expected a failure');
};

describe('queryParser', () => {
  const parse = queryParser<{ limit: number; after?: string; before?: string; 'expand[]'?: string[] }>(
    pageQuery({ [EXPAND_PARAM]: expandProperty(['customer', 'organisation'] as const) }),
  );

  test('coerces limit, applies its default and turns a single expand into an array', () => {
    expect(parse({})).toEqual({ limit: 10 });
    expect(parse({ limit: '100', 'expand[]': 'customer' })).toEqual({ limit: 100, 'expand[]': ['customer'] });
    expect(parse({ 'expand[]': ['customer', 'organisation'] })['expand[]']).toEqual(['customer', 'organisation']);
  });

  test.each([
    [{ limit: '0' }, 'parameter_invalid', 'limit'],
    [{ limit: '101' }, 'parameter_invalid', 'limit'],
    [{ limit: 'abc' }, 'parameter_invalid', 'limit'],
    [{ limit: '2.5' }, 'parameter_invalid', 'limit'],
    [{ limit: ['2', '3'] }, 'parameter_invalid', 'limit'],
    [{ after: 'a', before: 'b' }, 'parameters_exclusive', 'before'],
    [{ after: '' }, 'invalid_cursor', 'after'],
    [{ before: 'x\u0000' }, 'invalid_cursor', 'before'],
    [{ colour: 'red' }, 'parameter_invalid', 'colour'],
    [{ 'expand[]': 'payments' }, 'parameter_invalid', 'expand[]'],
  ])('%j is %s naming %s', (raw, code, param) => {
    expect(failure(() => parse(raw))).toEqual({ code, param });
  });

  test('a required parameter that is missing is named', () => {
    const search = queryParser(querySchema({ query: Type.String() }));
    expect(failure(() => search({}))).toEqual({ code: 'parameter_invalid', param: 'query' });
  });

  test('does not modify the raw query', () => {
    const raw = { limit: '5' };
    parse(raw);
    expect(raw).toEqual({ limit: '5' });
  });
});

const op = (method: string, path: string) => ({ method, path }) as AnyOperation;

describe('route order and labels', () => {
  test('literal segments are mounted before parameters', () => {
    const sorted = [op('get', '/debts/{id}'), op('get', '/debts/search'), op('get', '/debts'), op('post', '/debts/{id}/ready')].sort(bySpecificity);
    expect(sorted.findIndex((o) => o.path === '/debts/search')).toBeLessThan(sorted.findIndex((o) => o.path === '/debts/{id}'));
    expect(expressPath('/debts/{debtId}/payments/{id}')).toBe('/debts/:debtId/payments/:id');
  });

  test('labels are templates, whatever the path', () => {
    const label = routeLabeler([op('get', '/debts/{id}'), op('get', '/debts/search'), op('get', '/debts/{debtId}/payments')]);
    const res = (locals: Record<string, unknown> = {}, replayed = false) =>
      ({ locals, getHeader: (n: string) => (replayed && n === 'Idempotent-Replayed' ? 'true' : undefined) }) as never;
    const req = (path: string) => ({ path }) as never;
    expect(label(req('/debts/deb_123'), res())).toBe('/debts/{id}');
    expect(label(req('/debts/search'), res())).toBe('/debts/search');
    expect(label(req('/debts/deb_1/payments'), res())).toBe('/debts/{debtId}/payments');
    expect(label(req('/debts/deb_1/payments/x/y'), res())).toBe('unmatched');
    expect(label(req('/debts/deb_1'), res({ route: '/debts/{id}' }))).toBe('/debts/{id}');
    expect(label(req('/debts'), res({}, true))).toBe('replayed');
  });
});

describe('serializers', () => {
  const components = { Thing: Type.Object({ id: Type.String(), n: Type.Integer() }) };

  test('write the declared fields only, with a trailing newline', () => {
    const write = compileSerializer({ $ref: '#/components/schemas/Thing' }, components);
    expect(write({ id: 'a', n: 1, secret: 'x' })).toBe('{"id":"a","n":1}\n');
  });

  test('list bodies wrap the item schema', () => {
    const write = compileSerializer(listSchema({ $ref: '#/components/schemas/Thing' }), components);
    expect(JSON.parse(write({ object: 'list', data: [{ id: 'a', n: 2 }] }))).toEqual({ object: 'list', data: [{ id: 'a', n: 2 }] });
  });

  test('an unknown component is a programming error found at start', () => {
    expect(() => inlineRefs({ $ref: '#/components/schemas/Nope' }, components)).toThrow(/Nope/);
  });
});
