import { afterAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';

afterAll(closeHarness);

test('a NUL character anywhere in a JSON body is a 400 that names the problem and stores nothing', async () => {
  const { api, tenant } = await signedInTenant();
  for (const body of [{ name: 'a\u0000b' }, { name: 'ok', metadata: { k: 'v\u0000' } }, { name: 'ok', metadata: { 'k\u0000': 'v' } }]) {
    const res = await api.post('/organisations', body).expect(400);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'invalid_json' });
    expect(res.body.message).toContain('NUL');
  }
  const rows = await testDb()('organisations').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>('* as count');
  expect(Number(rows[0]!.count)).toBe(0);
});

test('an unpaired UTF-16 surrogate escape in a JSON body is a 400 that names the problem and stores nothing', async () => {
  const { api, tenant } = await signedInTenant();
  const bodies = [{ name: 'ok', metadata: { k: 'v\ud800' } }, { name: 'ok', metadata: { ['\udc00']: 'v' } }, { name: 'a\ud83d' }];
  for (const body of bodies) {
    const res = await api.post('/organisations', body).expect(400);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'invalid_json' });
    expect(res.body.message).toContain('surrogate');
  }
  const contact = await api.post('/customers', { kind: 'individual', full_name: 'x', contact_details: [{ type: 'address', value: '\ud83d' }] }).expect(400);
  expect(contact.body.code).toBe('invalid_json');
  // A well-formed pair (an emoji) is ordinary text.
  const emoji = await api.post('/organisations', { name: 'Smile \ud83d\ude00', metadata: { k: '\ud83d\ude00' } }).expect(201);
  expect(emoji.body).toMatchObject({ name: 'Smile 😀', metadata: { k: '😀' } });
  const rows = await testDb()('organisations').where({ tenant_id: tenant.tenantId }).count<{ count: string }[]>('* as count');
  expect(Number(rows[0]!.count)).toBe(1);
});
