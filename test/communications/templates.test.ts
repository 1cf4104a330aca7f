/**
 * Communication templates (docs/api.md section 13): created, listed, retrieved and edited by the
 * tenant behind the communications scopes; checked before they are stored (a bad template is a
 * 400 naming the field, line and column, and nothing is written); an edit of the text makes a new
 * version while the older ones stay listed; names are unique per tenant; other tenants see nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
});

const reminder = {
  name: 'reminder-day-0-email',
  delivery_method: 'email',
  subject: 'Your {{ organisation.customer_facing_name }} account {{ debt.account_number }}',
  body: '<p>Dear {{ customer.first_name }}, {{ amounts.formatted.remaining }} is outstanding.</p>',
};

const templateCount = async (tenantId: string) => Number((await testDb()('communication_templates').where({ tenant_id: tenantId }).count({ n: '*' }))[0]!.n);

describe('POST /communication_templates', () => {
  test('stores a checked template as version 1 and records communication_template.created', async () => {
    const res = await me.api.post('/communication_templates', { ...reminder, metadata: { team: 'ops' } }).expect(201);
    expect(res.body).toMatchObject({
      object: 'communication_template',
      name: reminder.name,
      delivery_method: 'email',
      version: 1,
      subject: reminder.subject,
      body: reminder.body,
      metadata: { team: 'ops' },
    });
    expect(res.body.id).toMatch(/^ctpl_[0-9A-Za-z]{24}$/);
    expect(await eventTypesFor(me.tenant.tenantId, res.body.id)).toEqual(['communication_template.created']);
    expect((await me.api.get(`/communication_templates/${res.body.id}`).expect(200)).body).toEqual(res.body);
  });

  test.each([
    ['an unknown variable', { body: 'Hello {{ customer.nickname }}' }, 'body', /line 1, column \d+.*customer\.nickname/],
    ['a template that does not parse', { body: 'Hello {{ customer.first_name ' }, 'body', /body/],
    ['an unknown filter', { body: '{{ customer.first_name | shout }}' }, 'body', /shout/],
    ['an email without a subject', { subject: undefined }, 'subject', /subject/],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_what, change, param, message) => {
    const before = await templateCount(me.tenant.tenantId);
    const body = { ...reminder, name: `bad-${Math.random()}`, ...change };
    const res = await me.api.post('/communication_templates', body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(res.body.message).toMatch(message);
    expect(await templateCount(me.tenant.tenantId)).toBe(before);
  });

  test('an SMS template takes no subject (400 naming subject) and is stored without one', async () => {
    const sms = { name: 'sms-reminder', delivery_method: 'sms', body: 'Hi {{ customer.first_name }}, please call us: {{ amounts.formatted.remaining }} due.' };
    expect((await me.api.post('/communication_templates', { ...sms, subject: 'Hello' }).expect(400)).body).toMatchObject({ param: 'subject' });
    expect((await me.api.post('/communication_templates', sms).expect(201)).body).toMatchObject({ delivery_method: 'sms', subject: null });
  });

  test('a name in use is 409 naming name; an unknown delivery method or field is 400', async () => {
    await me.api.post('/communication_templates', { ...reminder, name: 'taken' }).expect(201);
    expect((await me.api.post('/communication_templates', { ...reminder, name: 'taken' }).expect(409)).body).toMatchObject({
      code: 'resource_conflict',
      param: 'name',
    });
    expect((await me.api.post('/communication_templates', { ...reminder, name: 'x', delivery_method: 'fax' }).expect(400)).body.param).toBe('delivery_method');
    expect((await me.api.post('/communication_templates', { ...reminder, name: 'y', channel: 'email' }).expect(400)).body.param).toBe('channel');
    // Another tenant may use the same name.
    await other.api.post('/communication_templates', { ...reminder, name: 'taken' }).expect(201);
  });
});

describe('PATCH /communication_templates/{id}', () => {
  test('a new body is the next version; earlier versions stay listed; name and metadata alone make none', async () => {
    const created = (await me.api.post('/communication_templates', { ...reminder, name: 'versioned' }).expect(201)).body;
    const renamed = (await me.api.patch(`/communication_templates/${created.id}`, { name: 'versioned-2', metadata: { a: 'b' } }).expect(200)).body;
    expect(renamed).toMatchObject({ name: 'versioned-2', version: 1, body: reminder.body, metadata: { a: 'b' } });
    const edited = (await me.api.patch(`/communication_templates/${created.id}`, { body: '<p>Hello {{ customer.full_name }}</p>' }).expect(200)).body;
    expect(edited).toMatchObject({ version: 2, body: '<p>Hello {{ customer.full_name }}</p>', subject: reminder.subject });
    const versions = await me.api.get(`/communication_templates/${created.id}/versions`).expect(200);
    expect(versions.headers['x-total-count']).toBe('2');
    expect(versions.body.data.map((v: { version: number; body: string }) => [v.version, v.body])).toEqual([
      [2, '<p>Hello {{ customer.full_name }}</p>'],
      [1, reminder.body],
    ]);
    expect(versions.body.data[0].id).toMatch(/^ctv_/);
    expect(await eventTypesFor(me.tenant.tenantId, created.id)).toEqual([
      'communication_template.created',
      'communication_template.updated',
      'communication_template.updated',
    ]);
  });

  test('a bad new text is 400 and leaves the template and its versions as they were; PUT is its twin', async () => {
    const created = (await me.api.post('/communication_templates', { ...reminder, name: 'kept' }).expect(201)).body;
    expect((await me.api.patch(`/communication_templates/${created.id}`, { body: '{{ debt.secret }}' }).expect(400)).body.param).toBe('body');
    expect((await me.api.put(`/communication_templates/${created.id}`, { subject: null }).expect(400)).body.param).toBe('subject');
    expect((await me.api.get(`/communication_templates/${created.id}`).expect(200)).body).toEqual(created);
    expect((await me.api.get(`/communication_templates/${created.id}/versions`).expect(200)).headers['x-total-count']).toBe('1');
  });
});

describe('isolation and scopes', () => {
  test("another tenant's template is 404 for every operation, and lists hold only the tenant's own", async () => {
    const mine = (await me.api.post('/communication_templates', { ...reminder, name: 'private' }).expect(201)).body;
    await other.api.get(`/communication_templates/${mine.id}`).expect(404);
    await other.api.patch(`/communication_templates/${mine.id}`, { name: 'stolen' }).expect(404);
    await other.api.get(`/communication_templates/${mine.id}/versions`).expect(404);
    const theirs = await other.api.get('/communication_templates?limit=100').expect(200);
    expect(theirs.body.data.map((t: { id: string }) => t.id)).not.toContain(mine.id);
    expect(Number(theirs.headers['x-total-count'])).toBe(theirs.body.data.length);
  });

  test('communications:read reads but cannot write; a client without it cannot read', async () => {
    const reader = await signedInTenant('communications:read');
    await reader.api.get('/communication_templates').expect(200);
    expect((await reader.api.post('/communication_templates', reminder).expect(403)).body.code).toBe('insufficient_scope');
    const debtsOnly = await signedInTenant('debts:read');
    expect((await debtsOnly.api.get('/communication_templates').expect(403)).body.code).toBe('insufficient_scope');
  });
});
