/**
 * Events (docs/api.md section 7): written by the transaction of the change (outbox), so a change that
 * rolls back leaves no event and no delivery; `GET /events` and `GET /events/{id}` with scope
 * `events:read`, paginated, tenant-scoped.
 */
import { afterAll, expect, test } from '@jest/globals';
import { apiAs, closeHarness, newTenant, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';

afterAll(closeHarness);

test('events list newest first and read one by id, in the delivery shape', async () => {
  const { api } = await signedInTenant();
  const org = (await api.post('/organisations', { name: 'Evented Ltd' }).expect(201)).body;
  const cus = (await api.post('/customers', { kind: 'company', full_name: 'Customer Ltd' }).expect(201)).body;
  const list = await api.get('/events?limit=1').expect(200);
  expect(list.headers['x-total-count']).toBe('2');
  expect(list.headers['x-page-items']).toBe('1');
  const [newest] = list.body.data;
  expect(newest).toMatchObject({ object: 'event', type: 'customer.created', api_version: '2026-11-01', data: { object: cus } });
  expect(newest.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
  expect(Object.keys(newest).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'livemode', 'object', 'type']);
  expect(list.headers.link).toContain(`after=${newest.id}`);
  const older = await api.get(`/events?limit=1&after=${newest.id}`).expect(200);
  expect(older.body.data[0]).toMatchObject({ type: 'organisation.created', data: { object: org } });
  const one = await api.get(`/events/${newest.id}`).expect(200);
  expect(one.body).toEqual(newest);
  await api.get('/events?limit=101').expect(400);
});

test('a change that rolls back writes no event and no delivery', async () => {
  const { api, tenant } = await signedInTenant();
  const { organisationId } = await seedParties(api);
  const endpoint = (await api.post('/webhooks', { url: 'https://hooks.example.com/rollback', enabled_events: ['*'] }).expect(201)).body;
  const other = await signedInTenant();
  const foreignCustomer = (await other.api.post('/customers', { kind: 'company', full_name: 'Not yours' }).expect(201)).body;
  const eventsBefore = (await api.get('/events').expect(200)).headers['x-total-count'];
  const deliveriesBefore = await testDb()('webhook_deliveries').where({ endpoint_id: endpoint.id }).count({ n: '*' });

  // The reference check runs inside the create transaction, after it began: the whole transaction rolls back.
  const res = await api
    .post('/debts', { customer_id: foreignCustomer.id, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 100 } })
    .expect(404);
  expect(res.body.param).toBe('customer_id');

  expect((await api.get('/events').expect(200)).headers['x-total-count']).toBe(eventsBefore);
  expect(await testDb()('events').where({ tenant_id: tenant.tenantId, type: 'debt.created' }).count({ n: '*' })).toEqual([{ n: 0 }]);
  expect(await testDb()('webhook_deliveries').where({ endpoint_id: endpoint.id }).count({ n: '*' })).toEqual(deliveriesBefore);

  // A committed change does fan out to the endpoint, in the same transaction as its event.
  await api.post('/organisations', { name: 'Committed' }).expect(201);
  const { n } = (await testDb()('webhook_deliveries').where({ endpoint_id: endpoint.id }).count({ n: '*' }))[0]!;
  expect(Number(n)).toBe(Number(deliveriesBefore[0]!.n) + 1);
});

test('events need events:read and are the tenant’s own', async () => {
  const { api } = await signedInTenant();
  await api.post('/organisations', { name: 'Private events' }).expect(201);
  const mine = (await api.get('/events').expect(200)).body.data[0];

  const tenant = await newTenant();
  const noScope = apiAs(await tokenFor(tenant, { scope: 'debts:read webhooks:read' }));
  expect((await noScope.get('/events').expect(403)).body.code).toBe('insufficient_scope');
  await noScope.get(`/events/${mine.id}`).expect(403);

  const intruder = apiAs(await tokenFor(tenant, { scope: 'events:read' }));
  expect((await intruder.get(`/events/${mine.id}`).expect(404)).body.code).toBe('resource_missing');
  expect((await intruder.get(`/events?after=${mine.id}`).expect(400)).body.code).toBe('invalid_cursor');
  const theirs = await intruder.get('/events').expect(200);
  expect(theirs.body.data).toEqual([]);
  expect(theirs.headers['x-total-count']).toBe('0');
});
