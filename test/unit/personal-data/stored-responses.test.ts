/**
 * Which stored idempotent responses concern an erased customer (docs/api.md section 20, "Erasure"):
 * those whose path or body names one of the customer's ids, or whose body holds one of their values
 * (short values only as whole strings); a body that merely re-serialises differently does not.
 */
import { expect, test } from '@jest/globals';
import { concernsCustomer } from '../../../libs/domain/src/personal-data/stored-responses.js';
import { erasable } from '../../../libs/domain/src/personal-data/scrub.js';

const ids = ['cus_1', 'debt_9'];
const values = erasable(['Ada Lovelace', 'GB']);

test('the id in the path or the body, or a value in the body, concerns the customer', () => {
  expect(concernsCustomer('/debts/debt_9/payments', '{"id":"pay_1"}', ids, values)).toBe(true);
  expect(concernsCustomer('/customers', '{"id":"cus_1"}', ids, values)).toBe(true);
  expect(concernsCustomer('/customers', '{"name": "Ada Lovelace" }', ids, values)).toBe(true);
  expect(concernsCustomer('/customers', '{"country":"GB"}', ids, values)).toBe(true);
});

test('anything else does not, however the stored bytes are laid out', () => {
  expect(concernsCustomer('/customers', '{ "id" : "cus_2", "currency": "GBP", "note": "Ada" }', ids, values)).toBe(false);
  expect(concernsCustomer('/customers', 'not json', ids, values)).toBe(false);
});
