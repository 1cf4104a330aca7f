/**
 * `configurations.portal` on organisations (docs/api.md sections 18
 * and 19) over HTTP: the access fields (`verify_with`, `link_ttl_days`, `enabled`) and the income
 * and expenditure fields (`ie_required_above`, minor units or null; `disposable_income_share`,
 * 1-100) are stored and returned in one object; a bad value or an unknown field is 400 naming it,
 * nothing changed.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant } from '../support/harness.js';

let api: Awaited<ReturnType<typeof signedInTenant>>['api'];

beforeAll(async () => {
  ({ api } = await signedInTenant());
});
afterAll(closeHarness);

test('the portal fields are stored on create and replaced on PATCH', async () => {
  const portal = { verify_with: 'postcode', link_ttl_days: 7, enabled: false, ie_required_above: 50_000, disposable_income_share: 60 };
  const org = (await api.post('/organisations', { name: 'Portal Ltd', configurations: { portal } }).expect(201)).body;
  expect(org.configurations.portal).toEqual(portal);
  const patched = (await api.patch(`/organisations/${org.id}`, { configurations: { portal: { ie_required_above: null } } }).expect(200)).body;
  expect(patched.configurations.portal).toEqual({ ie_required_above: null });
  expect((await api.get(`/organisations/${org.id}`).expect(200)).body.configurations.portal).toEqual({ ie_required_above: null });
});

test.each([
  [{ disposable_income_share: 0 }, 'configurations.portal.disposable_income_share'],
  [{ disposable_income_share: 101 }, 'configurations.portal.disposable_income_share'],
  [{ disposable_income_share: 50.5 }, 'configurations.portal.disposable_income_share'],
  [{ ie_required_above: -1 }, 'configurations.portal.ie_required_above'],
  [{ ie_required_above: '100' }, 'configurations.portal.ie_required_above'],
  [{ share: 50 }, 'configurations.portal.share'],
  [{ verify_with: 'iris' }, 'configurations.portal.verify_with'],
  [{ link_ttl_days: 0 }, 'configurations.portal.link_ttl_days'],
  [{ enabled: 'yes' }, 'configurations.portal.enabled'],
])('%j is 400 naming %s and changes nothing', async (portal, param) => {
  const org = (await api.post('/organisations', { name: 'Strict Ltd', configurations: { portal: { disposable_income_share: 80 } } }).expect(201)).body;
  const res = await api.patch(`/organisations/${org.id}`, { configurations: { portal } }).expect(400);
  expect(res.body.param).toBe(param);
  expect((await api.get(`/organisations/${org.id}`).expect(200)).body.configurations.portal).toEqual({ disposable_income_share: 80 });
});
