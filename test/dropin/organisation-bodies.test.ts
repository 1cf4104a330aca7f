/**
 * `contact_details` in organisation bodies (docs/api.md section 15) over HTTP, under the public
 * API's version `2025-04-01` and ours: each entry given on `POST /organisations` becomes an
 * organisation contact detail with its event; on `PATCH`/`PUT` the array is the whole new set
 * (equal entries keep their object, the others are deleted, new ones created, the last primary of
 * a type wins); a bad entry is 400 naming `contact_details[i].<field>` with nothing written; the
 * organisation embeds its visible details, oldest first, on create, update, retrieve, list, search
 * and expansion, and in its `organisation.*` events.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor } from '../support/debts.js';
import { toDebt } from '../../libs/domain/src/debts/store.js';
import { expandObjects } from '../../services/api/src/operations/expansion.js';
import { DEBT_EXPANSIONS } from '../../services/api/src/resources/debts/expansion.js';
import { organisationOperations } from '../../services/api/src/resources/organisations/operations.js';

const OLD = '2025-04-01';
const OURS = '2026-11-01';

let main: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  main = await signedInTenant();
});
afterAll(closeHarness);

type Detail = { id: string; type: string; value: unknown; primary: boolean; usage: string | null; metadata: Record<string, string> };
const ids = (list: Array<{ id: string }>) => list.map((d) => d.id);
const stored = (org: string) => testDb()('organisation_contact_details').where({ organisation_id: org }).orderBy('seq');
const eventsOf = (id: string) =>
  testDb()('events').where({ tenant_id: main.tenant.tenantId }).whereRaw(`data->'object'->>'id' = ?`, [id]).orderBy('seq').select('id', 'type');

describe.each([OLD, OURS])('under Api-Version %s', (version) => {
  const api = {
    post: (path: string, body: object) => main.api.post(path, body).set('Api-Version', version),
    patch: (path: string, body: object) => main.api.patch(path, body).set('Api-Version', version),
    put: (path: string, body: object) => main.api.put(path, body).set('Api-Version', version),
    get: (path: string) => main.api.get(path).set('Api-Version', version),
  };
  /**
   * The event's object as the requested version shows it (`data` itself in 2025-04-01, `data.object`
   * in ours), its embedded details with their `livemode` as the answers show them.
   */
  const eventObject = async (id: string) => {
    const body = (await api.get(`/events/${id}`).expect(200)).body;
    return version === OLD ? body.data : body.data.object;
  };

  test('create: each entry becomes a detail with its event; the organisation embeds them everywhere, oldest first', async () => {
    const created = await api
      .post('/organisations', {
        name: 'Northwind Utilities',
        metadata: { batch: `bodies-${version}` },
        contact_details: [
          { type: 'email', value: 'help@northwind.example', primary: true, metadata: { team: 'care' } },
          { type: 'phone_number', value: '020 7946 0000', usage: 'work' },
          { type: 'address', value: { line_1: '1 High Street', postal_code: 'AB1 2CD', country: 'GB' } },
        ],
      })
      .expect(201);
    const org = created.body;
    expect(org.contact_details).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^ocd_/),
        object: 'organisation_contact_detail',
        livemode: true,
        organisation: org.id,
        type: 'email',
        value: 'help@northwind.example',
        primary: true,
        usage: null,
        metadata: { team: 'care' },
      }),
      expect.objectContaining({ type: 'phone_number', value: '+442079460000', usage: 'work', primary: false }),
      expect.objectContaining({
        type: 'address',
        value: { line_1: '1 High Street', line_2: null, city: null, county: null, postal_code: 'AB1 2CD', country: 'GB' },
      }),
    ]);
    expect(ids(await stored(org.id))).toEqual(ids(org.contact_details));
    // The sub-resource serves the same objects.
    const sub = (await api.get(`/organisations/${org.id}/contact_details/${org.contact_details[1].id}`).expect(200)).body;
    expect(sub).toEqual(org.contact_details[1]);

    expect((await api.get(`/organisations/${org.id}`).expect(200)).body).toEqual(org);
    const listed = (await api.get('/organisations?limit=100').expect(200)).body.data.find((o: { id: string }) => o.id === org.id);
    expect(listed).toEqual(org);
    const searched = (await api.get(`/organisations?query=${encodeURIComponent(`metadata['batch']:bodies-${version}`)}`).expect(200)).body.data;
    expect(searched).toEqual([org]);

    const events = await eventsOf(org.id);
    expect(events.map((e) => e.type)).toEqual(['organisation.created']);
    expect(await eventObject(events[0]!.id)).toEqual(org);
    for (const d of org.contact_details) expect(await eventTypesFor(main.tenant.tenantId, d.id)).toEqual(['organisation_contact_detail.created']);
    // The organisation's event comes before its details' events.
    const seqOf = async (objectId: string) =>
      Number((await testDb()('events').where({ tenant_id: main.tenant.tenantId }).whereRaw(`data->'object'->>'id' = ?`, [objectId]).first('seq')).seq);
    expect(await seqOf(org.id)).toBeLessThan(await seqOf(org.contact_details[0].id));
  });

  test('an organisation created without contact_details embeds an empty list; a debt expands it with its details', async () => {
    const org = (await api.post('/organisations', { name: 'Bare Org' }).expect(201)).body;
    expect(org.contact_details).toEqual([]);
    await api.post(`/organisations/${org.id}/contact_details`, { type: 'email', value: 'bare@org.example' }).expect(201);
    const customer = (await api.post('/customers', { full_name: 'Ada Lovelace' }).expect(201)).body;
    const debt = (await api.post('/debts', { customer_id: customer.id, organisation_id: org.id, currency: 'GBP' }).expect(201)).body;
    const expanded = (await api.get(`/debts/${debt.id}?expand[]=organisation`).expect(200)).body.organisation;
    expect(expanded).toEqual((await api.get(`/organisations/${org.id}`).expect(200)).body);
    expect(expanded.contact_details.map((d: Detail) => d.value)).toEqual(['bare@org.example']);
  });

  test.each(['PATCH', 'PUT'])('%s replaces the whole set: equal entries keep their object, the others are deleted, new ones created', async (method) => {
    const org = (
      await api
        .post('/organisations', {
          name: 'Replace Org',
          contact_details: [
            { type: 'email', value: 'keep@org.example', primary: true },
            { type: 'email', value: 'drop@org.example' },
            { type: 'phone_number', value: '+442079460001', usage: 'work' },
          ],
        })
        .expect(201)
    ).body;
    const [keep, drop, phone] = org.contact_details as Detail[];
    const send = method === 'PATCH' ? api.patch : api.put;
    const updated = (
      await send(`/organisations/${org.id}`, {
        contact_details: [
          { type: 'phone_number', value: '020 7946 0001', usage: 'work' },
          { type: 'email', value: 'keep@org.example' },
          { type: 'email', value: 'new@org.example', primary: true, metadata: { src: 'patch' } },
        ],
      }).expect(200)
    ).body;
    // Oldest first: the kept ones, then the new one; the new primary demoted the kept email.
    expect(updated.contact_details.map((d: Detail) => [d.id, d.value, d.primary])).toEqual([
      [keep!.id, 'keep@org.example', false],
      [phone!.id, '+442079460001', false],
      [expect.stringMatching(/^ocd_/), 'new@org.example', true],
    ]);
    expect(updated.name).toBe('Replace Org');
    const fresh = updated.contact_details[2] as Detail;
    expect(fresh.metadata).toEqual({ src: 'patch' });
    // The dropped one leaves the list, retrieval and the object; its row stays, marked deleted.
    await api.get(`/organisations/${org.id}/contact_details/${drop!.id}`).expect(404);
    expect(ids((await api.get(`/organisations/${org.id}/contact_details`).expect(200)).body.data).sort()).toEqual(ids(updated.contact_details).sort());
    const dropped = await testDb()('organisation_contact_details').where({ id: drop!.id }).first();
    expect(dropped.deleted_at).not.toBeNull();
    expect((await api.get(`/organisations/${org.id}`).expect(200)).body).toEqual(updated);

    expect(await eventTypesFor(main.tenant.tenantId, drop!.id)).toEqual(['organisation_contact_detail.created', 'organisation_contact_detail.deleted']);
    expect(await eventTypesFor(main.tenant.tenantId, keep!.id)).toEqual(['organisation_contact_detail.created', 'organisation_contact_detail.updated']);
    expect(await eventTypesFor(main.tenant.tenantId, phone!.id)).toEqual(['organisation_contact_detail.created']);
    expect(await eventTypesFor(main.tenant.tenantId, fresh.id)).toEqual(['organisation_contact_detail.created']);
    const events = await eventsOf(org.id);
    expect(events.map((e) => e.type)).toEqual(['organisation.created', 'organisation.updated']);
    expect(await eventObject(events[1]!.id)).toEqual(updated);

    // An update without contact_details keeps them; an empty array deletes them all.
    const renamed = (await send(`/organisations/${org.id}`, { name: 'Renamed Org' }).expect(200)).body;
    expect(renamed.contact_details).toEqual(updated.contact_details);
    const emptied = (await send(`/organisations/${org.id}`, { contact_details: [] }).expect(200)).body;
    expect(emptied.contact_details).toEqual([]);
    expect((await stored(org.id)).every((r: { deleted_at: Date | null }) => r.deleted_at !== null)).toBe(true);
  });

  test('a bad entry is 400 naming contact_details[i].<field>; nothing is created or changed', async () => {
    const before = await testDb()('organisations').where({ tenant_id: main.tenant.tenantId }).count<{ count: string }[]>('* as count');
    const bad = await api
      .post('/organisations', {
        name: 'Never Org',
        contact_details: [
          { type: 'email', value: 'fine@org.example' },
          { type: 'phone_number', value: 'not a number' },
        ],
      })
      .expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', param: 'contact_details[1].value' });
    const shape = await api
      .post('/organisations', { name: 'Never Org', contact_details: [{ type: 'email', value: 'x@org.example', colour: 'red' }] })
      .expect(400);
    expect(shape.body.code).toBe('validation_failed');
    expect(JSON.stringify(shape.body)).toContain('contact_details[0]');
    const after = await testDb()('organisations').where({ tenant_id: main.tenant.tenantId }).count<{ count: string }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
    expect(await testDb()('organisations').where({ tenant_id: main.tenant.tenantId, name: 'Never Org' })).toEqual([]);

    const org = (await api.post('/organisations', { name: 'Kept Org', contact_details: [{ type: 'email', value: 'kept@org.example' }] }).expect(201)).body;
    const eventsBefore = await testDb()('events').where({ tenant_id: main.tenant.tenantId }).count<{ count: string }[]>('* as count');
    const refused = await api
      .patch(`/organisations/${org.id}`, {
        name: 'Changed',
        contact_details: [
          { type: 'email', value: 'other@org.example' },
          { type: 'mobile_number', value: '12' },
        ],
      })
      .expect(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', param: 'contact_details[1].value' });
    expect((await api.get(`/organisations/${org.id}`).expect(200)).body).toEqual(org);
    expect((await stored(org.id)).map((r: { value: string; deleted_at: Date | null }) => [r.value, r.deleted_at])).toEqual([['kept@org.example', null]]);
    const eventsAfter = await testDb()('events').where({ tenant_id: main.tenant.tenantId }).count<{ count: string }[]>('* as count');
    expect(eventsAfter[0]!.count).toBe(eventsBefore[0]!.count);
  });
});

describe('cost', () => {
  /** Runs `work` while counting the queries this process sends (knex's and the lists' prepared ones alike). */
  async function counted<T>(work: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
    const queries: string[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
      queries.push(typeof config === 'string' ? config : (config as { text: string }).text);
      return (original as (...args: unknown[]) => unknown).call(this, config, ...rest);
    } as typeof original;
    try {
      return { result: await work(), queries };
    } finally {
      pg.Client.prototype.query = original;
    }
  }

  test('a page of organisations with their details, and a page of debts expanding them, cost one query for the details whatever the page size', async () => {
    const { api, tenant } = await signedInTenant();
    const orgs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const details = Array.from({ length: i % 3 }, (_, k) => ({ type: 'email', value: `o${i}d${k}@org.example` }));
      orgs.push((await api.post('/organisations', { name: `Org ${i}`, contact_details: details }).expect(201)).body.id);
    }
    const list = organisationOperations.find((op) => op.method === 'get' && op.path === '/organisations')!;
    const input = { ctx: { db: testDb() }, tenantId: tenant.tenantId, params: {}, query: { limit: 100 }, body: {}, res: { set: () => undefined } };
    const page = await counted(() => list.handler(input as never) as Promise<{ data: Array<{ id: string; contact_details: unknown[] }> }>);
    expect(page.result.data.map((o) => o.contact_details.length)).toEqual([2, 1, 0, 2, 1, 0]);
    // The page (organisations with their details) and the list's maintained total.
    expect(page.queries).toHaveLength(2);

    const customer = (await api.post('/customers', { full_name: 'Cost Customer' }).expect(201)).body.id;
    for (const org of orgs) await createDebt(api, { customerId: customer, organisationId: org });
    const debts = (await testDb()('debts').where({ tenant_id: tenant.tenantId })).map((r) => toDebt(r));
    const expanded = await counted(() => expandObjects(testDb(), tenant.tenantId, debts, ['organisation'], DEBT_EXPANSIONS));
    expect(expanded.result.map((d) => (d.organisation as { contact_details: unknown[] }).contact_details.length).sort()).toEqual([0, 0, 1, 1, 2, 2]);
    expect(expanded.queries).toHaveLength(1);
  });
});
