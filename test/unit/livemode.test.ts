/**
 * `livemode` on every object the API shows (docs/api.md section 15): the schema transform that
 * gives each API object the property (a serializer default per mode, documented and required in
 * OpenAPI), leaving lists, errors, plain objects and the input schemas alone; and the value walk
 * that writes it on answers made without that serializer (older versions, relations of relations).
 */
import { expect, test } from '@jest/globals';
import { compileInlined } from '../../services/api/src/operations/serializer.js';
import { stampLivemode, withLivemodeProperty } from '../../services/api/src/operations/livemode.js';

const customer = { type: 'object', properties: { id: { type: 'string' }, object: { const: 'customer', type: 'string' } }, required: ['id', 'object'] };
const debt = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'debt', type: 'string' },
    customer: { oneOf: [{ type: 'string' }, customer] },
    status: { type: 'object', properties: { value: { type: 'string' } } },
  },
  required: ['id', 'object'],
};
const list = { type: 'object', properties: { object: { const: 'list', type: 'string' }, data: { type: 'array', items: debt } } };

test('a serializer of each mode writes livemode on every object, nested and listed, not on the list or plain objects', () => {
  const value = { object: 'list', data: [{ id: 'deb_1', object: 'debt', customer: { id: 'cus_1', object: 'customer' }, status: { value: 'paying' } }] };
  for (const mode of [true, false]) {
    const written = JSON.parse(compileInlined(withLivemodeProperty(list, mode))(value));
    expect(written).toEqual({
      object: 'list',
      data: [{ id: 'deb_1', object: 'debt', livemode: mode, customer: { id: 'cus_1', object: 'customer', livemode: mode }, status: { value: 'paying' } }],
    });
  }
});

test('documented: a required boolean of every API object; the input schema is unchanged', () => {
  const before = JSON.stringify(debt);
  const documented = withLivemodeProperty(debt, 'documented') as typeof debt & { properties: Record<string, { type?: string }> };
  expect(documented.properties.livemode).toMatchObject({ type: 'boolean' });
  expect(documented.required).toEqual(['id', 'object', 'livemode']);
  expect((documented.properties.customer as unknown as { oneOf: [unknown, { required: string[] }] }).oneOf[1].required).toContain('livemode');
  expect(documented.properties.status).toEqual(debt.properties.status);
  expect(JSON.stringify(debt)).toBe(before);
  const error = { type: 'object', properties: { object: { const: 'error' } } };
  expect(withLivemodeProperty(error, 'documented')).toEqual(error);
});

test('stampLivemode writes the mode on every object of a value, nested ones too, not on lists, errors, plain objects or metadata', () => {
  const value = {
    object: 'list',
    data: [{ id: 'pay_1', object: 'payment', metadata: { object: 'x' }, debt: { id: 'deb_1', object: 'debt', customer: { id: 'cus_1', object: 'customer' } } }],
  };
  expect(stampLivemode(value, false)).toEqual({
    object: 'list',
    data: [
      {
        id: 'pay_1',
        object: 'payment',
        metadata: { object: 'x' },
        livemode: false,
        debt: { id: 'deb_1', object: 'debt', livemode: false, customer: { id: 'cus_1', object: 'customer', livemode: false } },
      },
    ],
  });
  // An event keeps its own mode (one stored before test mode is live whatever the reader).
  expect(stampLivemode({ object: 'event', livemode: true, data: { object: { object: 'debt', livemode: true } } }, false)).toEqual({
    object: 'event',
    livemode: true,
    data: { object: { object: 'debt', livemode: true } },
  });
  expect(stampLivemode({ object: 'error', code: 'x' }, true)).toEqual({ object: 'error', code: 'x' });
});
