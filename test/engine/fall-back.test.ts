/**
 * A step's fall-back to the customer's next usable channel (docs/api.md section 13, "Channel
 * fall-back"), as real processes over the real database and the SMS stand-in, clocks moved by the
 * workers' offsets: a customer whose email is marked undeliverable gets the email steps by SMS,
 * the same step and the same template (as plain text); the later steps keep their days counted
 * from the first message handed over; a customer with no usable detail on any channel still
 * waits in `enriching`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

let rig: EngineRig;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  rig = await engineRig();
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

test('email steps go by SMS when the email is undeliverable: same step, same template; later days counted from the first message', async () => {
  const t = await signedInTenant();
  const steps = [
    { day: 0, delivery_method: 'email', template: 'default-email-first' },
    { day: 3, delivery_method: 'sms', template: 'default-sms-reminder' },
    { day: 10, delivery_method: 'email', template: 'default-email-final' },
  ];
  const org = (
    await t.api.post('/organisations', { name: 'Fall-back Ltd', configurations: { collection_strategy: { steps, contacts_per_7_days: 5 } } }).expect(201)
  ).body.id;
  const customer = await customerWith(t.api, [
    { type: 'email', value: 'bounced@example.org', primary: true, status: 'undeliverable' },
    { type: 'mobile_number', value: '+447911123457' },
  ]);
  const id = await preparedDebt(t.api, org, customer);
  const first = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(id, 'contacted');
  const [com] = await communicationsOf(id);
  expect(com).toMatchObject({ step: 0, delivery_method: 'sms', direction: 'outbound', template_id: null, subject: null });
  expect(com.metadata).toMatchObject({ template_name: 'default-email-first' });
  // The email template's text, as plain text: its subject opens it, no HTML.
  expect(com.body).toMatch(/^Your Fall-back Ltd account ACC-1: Dear Ann Example,/);
  expect(com.body).not.toMatch(/<p>|&amp;/);
  await eventually(async () => (await communicationsOf(id))[0].status !== 'queued' || Promise.reject(new Error('queued')), 'the SMS handed over', 60_000);
  expect(['sent', 'delivered']).toContain((await communicationsOf(id))[0].status);
  const contacted = (await debtRow(id)).contacted_at as Date;
  expect((await debtRow(id)).engine_due_at.getTime()).toBe(contacted.getTime() + 3 * DAY_MS);
  await first.stop('SIGKILL');

  // Day 3: the SMS step on its own channel; the email step of day 10 is due 10 days after the first message, and goes by SMS too.
  const day3 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 3));
  await eventually(async () => ((await communicationsOf(id)).length === 2 ? true : Promise.reject(new Error('one'))), 'step 1', 60_000);
  await eventually(
    async () => ((await debtRow(id)).engine_due_at?.getTime() === contacted.getTime() + 10 * DAY_MS ? true : Promise.reject(new Error('not yet'))),
    'step 2 due on day 10 from the first message',
    60_000,
  );
  await day3.stop('SIGKILL');
  const day10 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 10));
  await eventually(async () => ((await communicationsOf(id)).length === 3 ? true : Promise.reject(new Error('two'))), 'step 2', 60_000);
  await day10.stop('SIGKILL');
  const coms = await communicationsOf(id);
  expect(coms.map((c) => [c.step, c.delivery_method, c.metadata.template_name])).toEqual([
    [0, 'sms', 'default-email-first'],
    [1, 'sms', 'default-sms-reminder'],
    [2, 'sms', 'default-email-final'],
  ]);
  // Never to the undeliverable email.
  expect(coms.every((c) => c.delivery_method !== 'email')).toBe(true);
}, 180_000); // three workers one after the other, each up to a minute

test('an SMS step goes by email when the customer has no mobile number', async () => {
  const t = await signedInTenant();
  const steps = [{ day: 0, delivery_method: 'sms', template: 'default-sms-reminder' }];
  const org = (await t.api.post('/organisations', { name: 'Text Co', configurations: { collection_strategy: { steps } } }).expect(201)).body.id;
  const id = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'only-mail@example.org' }]));
  const w = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(id, 'contacted');
  const [com] = await communicationsOf(id);
  expect(com).toMatchObject({ step: 0, delivery_method: 'email', subject: 'Your Text Co account' });
  expect(com.body).toMatch(/^<p>Text Co: £125\.00 is outstanding\./);
  await w.stop('SIGKILL');
});

test('no usable detail on any channel: the debt waits in enriching, nothing is made', async () => {
  const t = await signedInTenant();
  const org = (await t.api.post('/organisations', { name: 'Nobody Ltd' }).expect(201)).body.id;
  const id = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'gone2@example.org', status: 'undeliverable' }]));
  const w = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(id, 'enriching');
  expect(await communicationsOf(id)).toHaveLength(0);
  await w.stop('SIGKILL');
});
