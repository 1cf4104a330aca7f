/**
 * Contact preferences (docs/api.md section 10, "Contact preferences"; sections 12 and 13) over
 * HTTP with real workers and the SMS stand-in: `contact_preferences` is validated on `POST` and
 * `PATCH /customers/{id}` (a 400 naming the field, nothing changed), shown on GET with who set it,
 * and each change records `customer.updated`; the engine never uses a refused channel (the step
 * goes to the next accepted one) and waits for the preferred hours; an inbound SMS `STOP` removes
 * `sms` from the accepted channels, with the same event.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let rig: EngineRig;
let t: Tenant;

beforeAll(async () => {
  rig = await engineRig();
  t = await signedInTenant();
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

const updates = async (customer: string) =>
  Number(
    (
      await testDb()('events')
        .where({ tenant_id: t.tenant.tenantId, type: 'customer.updated' })
        .whereRaw(`data->'object'->>'id' = ?`, [customer])
        .count({ n: '*' })
    )[0]!.n,
  );

test('validated on POST and PATCH (400 naming the field, nothing changed), shown on GET, customer.updated on a change', async () => {
  const bad: Array<[unknown, string]> = [
    [{ channels: ['fax'] }, 'contact_preferences.channels'],
    [{ channels: ['sms'], hours: { from: '07:00', until: '12:00' } }, 'contact_preferences.hours.from'],
    [{ channels: ['sms'], hours: { from: '09:00', until: '22:00' } }, 'contact_preferences.hours.until'],
    [{ channels: ['sms'], hours: { from: '12:00', until: '09:00' } }, 'contact_preferences.hours.until'],
    [{ channels: ['sms'], language: 'English' }, 'contact_preferences.language'],
    [{ channels: ['sms'], sms: true }, 'contact_preferences'],
  ];
  for (const [prefs, param] of bad) {
    const res = await t.api.post('/customers', { full_name: 'Bad Prefs', contact_preferences: prefs }).expect(400);
    expect(`${res.body.param} ${JSON.stringify(res.body.errors ?? [])}`).toContain(param);
  }
  const id = await customerWith(t.api, [{ type: 'email', value: 'prefs@example.org' }], {
    contact_preferences: { channels: ['email', 'letter'], hours: { from: '10:00', until: '18:00' }, language: 'en-GB' },
  });
  const shown = (await t.api.get(`/customers/${id}`).expect(200)).body.contact_preferences;
  expect(shown).toMatchObject({ channels: ['email', 'letter'], hours: { from: '10:00', until: '18:00' }, language: 'en-GB', changed_by: 'api' });
  const before = await updates(id);
  const res = await t.api.patch(`/customers/${id}`, { contact_preferences: { channels: ['email'], hours: { from: '12:00', until: '09:00' } } }).expect(400);
  expect(res.body.param).toBe('contact_preferences.hours.until');
  expect((await t.api.get(`/customers/${id}`).expect(200)).body.contact_preferences).toEqual(shown);
  expect(await updates(id)).toBe(before);
  await t.api.patch(`/customers/${id}`, { contact_preferences: { channels: ['letter'], hours: null, language: null } }).expect(200);
  expect((await t.api.get(`/customers/${id}`).expect(200)).body.contact_preferences).toMatchObject({ channels: ['letter'], hours: null });
  expect(await updates(id)).toBe(before + 1);
});

test('the engine never uses a refused channel: an email step goes by SMS; preferred hours wait; an SMS STOP removes sms', async () => {
  const org = (
    await t.api
      .post('/organisations', {
        name: 'Prefs Ltd',
        configurations: {
          collection_strategy: {
            steps: [
              { day: 0, delivery_method: 'email', template: 'default-email-first' },
              { day: 0, delivery_method: 'email', template: 'default-email-final' },
            ],
          },
        },
      })
      .expect(201)
  ).body.id;
  const details = [
    { type: 'email', value: 'no-email@example.org', primary: true },
    { type: 'mobile_number', value: '+447911123458' },
  ];
  const customer = await customerWith(t.api, details, { contact_preferences: { channels: ['sms', 'letter'], hours: null, language: null } });
  const late = await customerWith(t.api, [{ type: 'email', value: 'late-prefs@example.org' }], {
    contact_preferences: { channels: ['email'], hours: { from: '14:00', until: '16:00' }, language: null },
  });
  const id = await preparedDebt(t.api, org, customer);
  const waiting = await preparedDebt(t.api, org, late);
  // Noon in London: inside 08:00-21:00, outside the second customer's 14:00-16:00.
  const w = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(id, 'contacted');
  const [first] = await communicationsOf(id);
  expect(first).toMatchObject({ step: 0, delivery_method: 'sms' });
  const due = await eventually(
    async () =>
      (await debtRow(waiting)).engine_due_at > new Date(Date.now() + 3_600_000) ? (await debtRow(waiting)).engine_due_at : Promise.reject(new Error('not yet')),
    'the second debt to wait for 14:00',
    60_000,
  );
  expect(due.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit' })).toBe('14:00');
  expect(await communicationsOf(waiting)).toHaveLength(0);

  // The customer answers STOP: sms leaves the accepted channels, with customer.updated.
  const before = await updates(customer);
  await fetch(`${rig.channels.sms.url}/_standin/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: '447911123458', text: ' Stop ' }),
  });
  await eventually(
    async () =>
      (await t.api.get(`/customers/${customer}`).expect(200)).body.contact_preferences.channels.includes('sms') ? Promise.reject(new Error('sms')) : true,
    'STOP to remove sms',
    60_000,
  );
  const prefs = (await t.api.get(`/customers/${customer}`).expect(200)).body.contact_preferences;
  expect(prefs).toMatchObject({ channels: ['letter'], changed_by: 'sms_stop' });
  expect(await updates(customer)).toBe(before + 1);
  await w.stop('SIGKILL');
  // Nothing ever went by a refused channel.
  expect((await communicationsOf(id)).filter((c) => c.direction === 'outbound' && c.delivery_method === 'email')).toHaveLength(0);
});
