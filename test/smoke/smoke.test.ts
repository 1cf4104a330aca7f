import { afterAll, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';

afterAll(closeHarness);

test('a tenant gets a token and creates and lists a debt', async () => {
  const { api } = await signedInTenant();
  const { organisationId, customerId } = await seedParties(api);
  const created = await api
    .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 1000 } })
    .expect(201);
  expect(created.body.id).toMatch(/^deb_[0-9A-Za-z]{24}$/);
  const list = await api.get('/debts').expect(200);
  expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([created.body.id]);
  expect(list.headers['x-total-count']).toBe('1');
});
