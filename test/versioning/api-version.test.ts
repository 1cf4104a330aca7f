/**
 * API versioning (docs/api.md section 3): the optional `Api-Version: YYYY-MM-DD` request header, the
 * newest version by default, the version used echoed in the response, 400 for any other value.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant } from '../support/harness.js';

let api: Awaited<ReturnType<typeof signedInTenant>>['api'];
let tenantId: string;

beforeAll(async () => {
  const signedIn = await signedInTenant();
  api = signedIn.api;
  tenantId = signedIn.tenant.tenantId;
});
afterAll(closeHarness);

describe('Api-Version', () => {
  test('without the header the newest version is used and echoed', async () => {
    const res = await api.get('/organisations').expect(200);
    expect(res.headers['api-version']).toBe('2026-11-01');
  });

  test('an explicit supported version is echoed', async () => {
    const res = await api.get('/tenants/me').set('Api-Version', '2026-11-01').expect(200);
    expect(res.headers['api-version']).toBe('2026-11-01');
    expect(res.body.id).toBe(tenantId);
  });

  test('the version is echoed on writes too', async () => {
    const res = await api.post('/organisations', { name: 'Versioned Ltd' }).set('Api-Version', '2026-11-01').expect(201);
    expect(res.headers['api-version']).toBe('2026-11-01');
  });

  test.each([
    ['a well-formed but unknown date', '2025-01-01'],
    ['a future date', '2099-12-31'],
    ['another format', '20261101'],
    ['a word', 'latest'],
  ])('%s is 400 unsupported_api_version naming the header, and nothing is created', async (_what, version) => {
    const res = await api
      .post('/organisations', { name: `Rejected ${version}` })
      .set('Api-Version', version)
      .expect(400);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'unsupported_api_version', param: 'Api-Version' });
    expect(res.body.message).toContain('2026-11-01');
    expect(res.headers['api-version']).toBeUndefined();
    const list = await api.get('/organisations').expect(200);
    expect(list.body.data.map((o: { name: string }) => o.name)).not.toContain(`Rejected ${version}`);
  });
});
