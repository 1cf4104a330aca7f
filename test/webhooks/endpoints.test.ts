/**
 * Webhook endpoint management (docs/api.md section 7): create, retrieve, update, delete, list; every
 * validation rejection (400, nothing changed); secrets never returned; scopes; tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { apiAs, closeHarness, newTenant, signedInTenant, testDb, tokenFor } from '../support/harness.js';

afterAll(closeHarness);

type Api = Awaited<ReturnType<typeof signedInTenant>>['api'];
const oauth2 = { token_url: 'https://auth.receiver.example/oauth/token', client_id: 'dms-sender', client_secret: 'receiver-client-secret-0123456789' };

let api: Api;
beforeAll(async () => {
  ({ api } = await signedInTenant());
});

async function endpointCount(a: Api = api): Promise<number> {
  const res = await a.get('/webhooks').expect(200);
  return Number(res.headers['x-total-count']);
}

describe('create', () => {
  test('minimal body: version defaults to the newest, signing secret returned once', async () => {
    const res = await api.post('/webhooks', { url: 'https://hooks.example.com/dms', enabled_events: ['*'] }).expect(201);
    expect(res.body).toMatchObject({
      object: 'webhook_endpoint',
      url: 'https://hooks.example.com/dms',
      enabled: true,
      enabled_events: ['*'],
      version: 'v20261101',
      credentials: null,
      metadata: {},
    });
    expect(res.body.id).toMatch(/^wh_[0-9A-Za-z]{24}$/);
    expect(res.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const keyBytes = Buffer.from(res.body.signing_secret.slice(6), 'base64').length;
    expect(keyBytes).toBeGreaterThanOrEqual(24);
    expect(keyBytes).toBeLessThanOrEqual(64);
    const again = await api.get(`/webhooks/${res.body.id}`).expect(200);
    expect(again.body.signing_secret).toBeUndefined();
    expect(again.body).toEqual(Object.fromEntries(Object.entries(res.body).filter(([k]) => k !== 'signing_secret')));
  });

  test('full body with OAuth credentials: the client secret is stored encrypted and never returned', async () => {
    const res = await api
      .post('/webhooks', {
        url: 'https://hooks.example.com/a',
        enabled_events: ['debt.created', 'debt.paid'],
        version: 'v20261101',
        credentials: { oauth2 },
        metadata: { team: 'collections' },
      })
      .expect(201);
    expect(res.body.credentials).toEqual({ oauth2: { token_url: oauth2.token_url, client_id: oauth2.client_id } });
    expect(JSON.stringify(res.body)).not.toContain(oauth2.client_secret);
    const row = await testDb()('webhook_endpoints').where({ id: res.body.id }).first();
    expect(JSON.stringify(row)).not.toContain(oauth2.client_secret);
    expect(JSON.stringify(row)).not.toContain(res.body.signing_secret.slice(6));
    expect(row.oauth2_client_secret_ciphertext).toMatch(/^v1\./);
    for (const path of [`/webhooks/${res.body.id}`, '/webhooks']) {
      const read = await api.get(path).expect(200);
      expect(JSON.stringify(read.body)).not.toContain(oauth2.client_secret);
      expect(JSON.stringify(read.body)).not.toContain('signing_secret');
      expect(JSON.stringify(read.body)).not.toContain('client_secret');
    }
  });

  const rejections: Array<[string, object, string]> = [
    ['url missing', { enabled_events: ['*'] }, 'url'],
    ['enabled_events missing', { url: 'https://h.example.com' }, 'enabled_events'],
    ['enabled_events empty', { url: 'https://h.example.com', enabled_events: [] }, 'enabled_events'],
    ['* together with a type', { url: 'https://h.example.com', enabled_events: ['*', 'debt.created'] }, 'enabled_events'],
    ['unknown event type', { url: 'https://h.example.com', enabled_events: ['debt.exploded'] }, 'enabled_events[0]'],
    ['duplicate event types', { url: 'https://h.example.com', enabled_events: ['debt.created', 'debt.created'] }, 'enabled_events'],
    ['enabled_events not an array', { url: 'https://h.example.com', enabled_events: '*' }, 'enabled_events'],
    ['version without v', { url: 'https://h.example.com', enabled_events: ['*'], version: '20261101' }, 'version'],
    ['version too short', { url: 'https://h.example.com', enabled_events: ['*'], version: 'v2026111' }, 'version'],
    ['version not a real date', { url: 'https://h.example.com', enabled_events: ['*'], version: 'v20260231' }, 'version'],
    ['version not supported', { url: 'https://h.example.com', enabled_events: ['*'], version: 'v20250101' }, 'version'],
    [
      'oauth2 without client_secret',
      { url: 'https://h.example.com', enabled_events: ['*'], credentials: { oauth2: { token_url: oauth2.token_url, client_id: 'x' } } },
      'credentials.oauth2.client_secret',
    ],
    [
      'oauth2 without token_url',
      { url: 'https://h.example.com', enabled_events: ['*'], credentials: { oauth2: { client_id: 'x', client_secret: 'y' } } },
      'credentials.oauth2.token_url',
    ],
    [
      'oauth2 without client_id',
      { url: 'https://h.example.com', enabled_events: ['*'], credentials: { oauth2: { token_url: oauth2.token_url, client_secret: 'y' } } },
      'credentials.oauth2.client_id',
    ],
    ['credentials without oauth2', { url: 'https://h.example.com', enabled_events: ['*'], credentials: {} }, 'credentials.oauth2'],
    ['unknown credentials field', { url: 'https://h.example.com', enabled_events: ['*'], credentials: { oauth2, basic: {} } }, 'credentials.basic'],
    [
      'token_url not absolute',
      { url: 'https://h.example.com', enabled_events: ['*'], credentials: { oauth2: { ...oauth2, token_url: '/token' } } },
      'credentials.oauth2.token_url',
    ],
    ['url not absolute', { url: '/hooks', enabled_events: ['*'] }, 'url'],
    ['url not a URL', { url: 'hooks example', enabled_events: ['*'] }, 'url'],
    ['url with another scheme', { url: 'ftp://h.example.com/x', enabled_events: ['*'] }, 'url'],
    ['url with user info', { url: 'https://user:pw@h.example.com/x', enabled_events: ['*'] }, 'url'],
    ['unknown field', { url: 'https://h.example.com', enabled_events: ['*'], secret: 'mine' }, 'secret'],
    ['metadata value not a string', { url: 'https://h.example.com', enabled_events: ['*'], metadata: { a: 1 } }, 'metadata.a'],
  ];
  test.each(rejections)('rejects %s (400, nothing created)', async (_name, body, param) => {
    const before = await endpointCount();
    const res = await api.post('/webhooks', body).expect(400);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'validation_failed', param });
    expect(await endpointCount()).toBe(before);
  });
});

describe('update and delete', () => {
  test('PATCH changes any subset; credentials replaced, then removed with null', async () => {
    const created = (await api.post('/webhooks', { url: 'https://hooks.example.com/u', enabled_events: ['debt.created'], metadata: { a: '1' } }).expect(201))
      .body;
    const id = created.id;
    const v0 = (await testDb()('webhook_endpoints').where({ id }).first()).credentials_version;

    let res = await api.patch(`/webhooks/${id}`, { enabled: false }).expect(200);
    expect(res.body).toMatchObject({ enabled: false, url: created.url, enabled_events: ['debt.created'] });
    res = await api
      .patch(`/webhooks/${id}`, { url: 'https://hooks.example.com/v', enabled_events: ['*'], version: 'v20261101', enabled: true, metadata: { b: '2' } })
      .expect(200);
    expect(res.body).toMatchObject({
      url: 'https://hooks.example.com/v',
      enabled_events: ['*'],
      enabled: true,
      metadata: { a: '1', b: '2' },
      credentials: null,
    });
    expect(res.body.signing_secret).toBeUndefined();

    res = await api.patch(`/webhooks/${id}`, { credentials: { oauth2 } }).expect(200);
    expect(res.body.credentials).toEqual({ oauth2: { token_url: oauth2.token_url, client_id: oauth2.client_id } });
    expect(JSON.stringify(res.body)).not.toContain(oauth2.client_secret);
    const v1 = (await testDb()('webhook_endpoints').where({ id }).first()).credentials_version;
    expect(v1).toBeGreaterThan(v0);

    res = await api.patch(`/webhooks/${id}`, { credentials: null }).expect(200);
    expect(res.body.credentials).toBeNull();
    const row = await testDb()('webhook_endpoints').where({ id }).first();
    expect(row.oauth2_client_secret_ciphertext).toBeNull();
    expect(row.credentials_version).toBeGreaterThan(v1);
  });

  const patchRejections: Array<[string, object, string]> = [
    ['empty body', {}, 'body'],
    ['unknown field', { signing_secret: 'whsec_x' }, 'signing_secret'],
    ['enabled not boolean', { enabled: 'yes' }, 'enabled'],
    ['* with others', { enabled_events: ['*', 'debt.paid'] }, 'enabled_events'],
    ['unknown event', { enabled_events: ['debt.lost'] }, 'enabled_events[0]'],
    ['bad version', { version: 'v20261301' }, 'version'],
    ['incomplete oauth2', { credentials: { oauth2: { token_url: oauth2.token_url } } }, 'credentials.oauth2.client_id'],
    ['relative url', { url: 'hooks' }, 'url'],
  ];
  test.each(patchRejections)('PATCH rejects %s (400, nothing changed)', async (_name, body, param) => {
    const created = (await api.post('/webhooks', { url: 'https://hooks.example.com/p', enabled_events: ['debt.created'] }).expect(201)).body;
    const res = await api.patch(`/webhooks/${created.id}`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    const after = await api.get(`/webhooks/${created.id}`).expect(200);
    expect(after.body).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'signing_secret')));
  });

  test('DELETE hides the endpoint and erases its stored OAuth secret', async () => {
    const created = (await api.post('/webhooks', { url: 'https://hooks.example.com/d', enabled_events: ['*'], credentials: { oauth2 } }).expect(201)).body;
    const before = await endpointCount();
    const res = await api.delete(`/webhooks/${created.id}`).expect(200);
    expect(res.body).toEqual({ id: created.id, object: 'webhook_endpoint', livemode: true, deleted: true });
    await api.get(`/webhooks/${created.id}`).expect(404);
    await api.patch(`/webhooks/${created.id}`, { enabled: false }).expect(404);
    await api.delete(`/webhooks/${created.id}`).expect(404);
    await api.get(`/webhooks/${created.id}/deliveries`).expect(404);
    expect(await endpointCount()).toBe(before - 1);
    const row = await testDb()('webhook_endpoints').where({ id: created.id }).first();
    expect(row.oauth2_client_secret_ciphertext).toBeNull();
  });
});

describe('list', () => {
  test('paginates newest first with the list headers', async () => {
    const { api: fresh } = await signedInTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await fresh.post('/webhooks', { url: `https://hooks.example.com/${i}`, enabled_events: ['*'] }).expect(201)).body.id);
    const page = await fresh.get('/webhooks?limit=2').expect(200);
    expect(page.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.headers['x-page-items']).toBe('2');
    expect(page.headers.link).toContain(`after=${ids[1]}`);
    const next = await fresh.get(`/webhooks?limit=2&after=${ids[1]}`).expect(200);
    expect(next.body.data.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
    await fresh.get('/webhooks?limit=0').expect(400);
  });
});

describe('scopes and tenants', () => {
  test('webhooks:read cannot write; other scopes cannot read', async () => {
    const tenant = await newTenant();
    const reader = apiAs(await tokenFor(tenant, { scope: 'webhooks:read' }));
    const writer = apiAs(await tokenFor(tenant, { scope: 'webhooks:write' }));
    const other = apiAs(await tokenFor(tenant, { scope: 'debts:read events:read' }));
    const res = await reader.post('/webhooks', { url: 'https://hooks.example.com/s', enabled_events: ['*'] }).expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    const created = await writer.post('/webhooks', { url: 'https://hooks.example.com/s', enabled_events: ['*'] }).expect(201);
    await reader.get(`/webhooks/${created.body.id}`).expect(200);
    await reader.get(`/webhooks/${created.body.id}/deliveries`).expect(200);
    await reader.patch(`/webhooks/${created.body.id}`, { enabled: false }).expect(403);
    await reader.delete(`/webhooks/${created.body.id}`).expect(403);
    await other.get('/webhooks').expect(403);
    await other.get(`/webhooks/${created.body.id}/deliveries`).expect(403);
  });

  test("another tenant's endpoint is not found, and its deliveries are not listed", async () => {
    const created = (await api.post('/webhooks', { url: 'https://hooks.example.com/t', enabled_events: ['*'] }).expect(201)).body;
    const { api: intruder } = await signedInTenant();
    for (const res of [
      await intruder.get(`/webhooks/${created.id}`),
      await intruder.patch(`/webhooks/${created.id}`, { enabled: false }),
      await intruder.delete(`/webhooks/${created.id}`),
      await intruder.get(`/webhooks/${created.id}/deliveries`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('resource_missing');
    }
    const list = await intruder.get('/webhooks').expect(200);
    expect(list.body.data).toEqual([]);
    expect((await intruder.get(`/webhooks?after=${created.id}`)).body.code).toBe('invalid_cursor');
    const still = await api.get(`/webhooks/${created.id}`).expect(200);
    expect(still.body.enabled).toBe(true);
  });
});
