/**
 * No poison pill (docs/api.md section 13): deleting a customer whose debts the collection engine
 * works is refused (409 naming the debts), and a debt whose customer is gone all the same (deleted
 * before that rule existed) is recorded on that debt alone (`follow_up_required` with the reason)
 * while another tenant's debts in the same worker are contacted.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

let rig: EngineRig;

beforeAll(async () => {
  rig = await engineRig();
}, 60_000);

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

test('deleting a customer whose debt is being worked is 409 naming the debt; nothing changes', async () => {
  const t = await signedInTenant();
  const org = (await t.api.post('/organisations', { name: 'Kept Ltd' }).expect(201)).body.id as string;
  const customer = await customerWith(t.api, [{ type: 'email', value: 'kept@example.org', primary: true }]);
  const debt = await preparedDebt(t.api, org, customer);
  const res = await t.api.delete(`/customers/${customer}`).expect(409);
  expect(res.body).toMatchObject({ code: 'resource_conflict' });
  expect(res.body.message).toContain(debt);
  await t.api.get(`/customers/${customer}`).expect(200);
  // Once the debt is withdrawn, the customer can go.
  await t.api.post(`/debts/${debt}/withdraw`).expect(200);
  await t.api.delete(`/customers/${customer}`).expect(200);
});

test("a debt whose customer is gone goes to follow_up_required; another tenant's debt in the same worker is contacted", async () => {
  const [a, b] = await Promise.all([signedInTenant(), signedInTenant()]);
  const orgA = (await a.api.post('/organisations', { name: 'Gone Ltd' }).expect(201)).body.id as string;
  const orgB = (await b.api.post('/organisations', { name: 'Other Ltd' }).expect(201)).body.id as string;
  const gone = await customerWith(a.api, [{ type: 'email', value: 'gone@example.org', primary: true }]);
  const poisoned = await preparedDebt(a.api, orgA, gone);
  // Deleted as the API allowed before (the rule above refuses it now).
  await testDb()('customers').where({ id: gone }).update({ deleted_at: testDb().fn.now() });
  const fine = await preparedDebt(b.api, orgB, await customerWith(b.api, [{ type: 'email', value: 'fine@example.org', primary: true }]));
  await rig.worker([a.tenant.tenantId, b.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(fine, 'contacted', 60_000);
  await statusBecomes(poisoned, 'follow_up_required', 60_000);
  expect((await debtRow(poisoned)).status_context).toMatch(/No such customer/);
  expect(await communicationsOf(poisoned)).toHaveLength(0);
});
