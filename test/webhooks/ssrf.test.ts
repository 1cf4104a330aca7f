/**
 * SSRF protection at registration (docs/api.md section 7): with private targets disallowed (an extra
 * API instance with ALLOW_PRIVATE_WEBHOOK_TARGETS=false), URLs and token URLs that are plain http
 * or whose host is or resolves to a loopback, private, link-local, unique-local or metadata address,
 * or any other block of the IANA special-purpose registries (an IPv6 form carrying a private IPv4
 * address, local-use NAT64, site-local), are refused on create and update. No request is ever sent to any of them. The address classifier
 * of @dms/ssrf is checked directly too.
 */
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { startService, type RunningService } from '@dms/tools/processes';
import { nonPublicRange } from '@dms/ssrf';
import { SERVICE_ENV, closeHarness, newTenant, tokenFor, testDb } from '../support/harness.js';

let strictApi: RunningService;
let token: string;
let tenantId: string;
const endpointCount = async () => Number((await testDb()('webhook_endpoints').where({ tenant_id: tenantId }).count({ n: '*' }))[0]!.n);

beforeAll(async () => {
  strictApi = await startService('api', { ...SERVICE_ENV, ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
  const tenant = await newTenant('webhooks:read webhooks:write');
  tenantId = tenant.tenantId;
  token = await tokenFor(tenant);
});

afterAll(async () => {
  await strictApi?.stop();
  await closeHarness();
});

const post = (body: object) => request(strictApi.url).post('/webhooks').set('Authorization', `Bearer ${token}`).send(body);
const patch = (id: string, body: object) => request(strictApi.url).patch(`/webhooks/${id}`).set('Authorization', `Bearer ${token}`).send(body);
const oauth2 = (token_url: string) => ({ oauth2: { token_url, client_id: 'c', client_secret: 's3cret-value' } });

// Public literals are accepted without any traffic: the dispatcher is not serving this tenant.
const PUBLIC_URL = 'https://93.184.215.14/hooks';

const refused = [
  'https://127.0.0.1/hook',
  'https://127.1.2.3:8443/hook',
  'https://[::1]/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.10/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fc00::1]/hook',
  'https://[fe80::1]/hook',
  'https://100.64.0.1/hook',
  'https://0.0.0.0/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://224.0.0.1/hook',
  'https://[::127.0.0.1]/hook',
  'https://[::a00:1]/hook',
  'https://[64:ff9b:1::a9fe:a9fe]/hook',
  'https://[64:ff9b::a9fe:a9fe]/hook',
  'https://[fec0::1]/hook',
  'https://[2002:7f00:1::]/hook',
  'https://192.0.0.9/hook',
  'https://localhost/hook',
  `https://${hostname()}/hook`,
];

describe('with private targets disallowed', () => {
  test('the machine name resolves to loopback here (so the name case below is meaningful)', async () => {
    const { address } = await lookup(hostname());
    expect(nonPublicRange(address)).not.toBeNull();
  });

  test.each(refused)('create refuses url %s', async (url) => {
    const before = await endpointCount();
    const res = await post({ url, enabled_events: ['*'] }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'url' });
    expect(res.body.message).toMatch(/non-public address/);
    expect(await endpointCount()).toBe(before);
  });

  test.each(refused)('create refuses token_url %s', async (tokenUrl) => {
    const res = await post({ url: PUBLIC_URL, enabled_events: ['*'], credentials: oauth2(tokenUrl) }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'credentials.oauth2.token_url' });
  });

  test('plain http is refused, https to a public address accepted', async () => {
    const res = await post({ url: 'http://93.184.215.14/hooks', enabled_events: ['*'] }).expect(400);
    expect(res.body).toMatchObject({ param: 'url', message: 'url must be an https URL' });
    await post({ url: PUBLIC_URL, enabled_events: ['*'], credentials: oauth2('https://93.184.215.15/token') }).expect(201);
  });

  test('update refuses private url and token_url, leaving the endpoint unchanged', async () => {
    const created = (await post({ url: PUBLIC_URL, enabled_events: ['*'] }).expect(201)).body;
    for (const url of ['https://127.0.0.1/x', 'https://localhost/x', 'https://[::1]/x', 'https://10.0.0.1/x', 'https://169.254.169.254/x']) {
      expect((await patch(created.id, { url }).expect(400)).body.param).toBe('url');
      expect((await patch(created.id, { credentials: oauth2(url) }).expect(400)).body.param).toBe('credentials.oauth2.token_url');
    }
    const after = await request(strictApi.url).get(`/webhooks/${created.id}`).set('Authorization', `Bearer ${token}`).expect(200);
    expect(after.body).toMatchObject({ url: PUBLIC_URL, credentials: null });
  });
});

describe('address classification (@dms/ssrf)', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:10.0.0.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['::127.0.0.1', 'loopback'],
    ['fec0::1', 'siteLocal'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  test.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });
});
