/**
 * A provider that refuses for a while is not a failure (docs/api.md section 13): the SMS stand-in
 * answers the engine's first submissions 503 (or 429), as an SMS API's outage (or throttling) does;
 * the message is tried again with backoff (not left for reconciliation), is received exactly once,
 * its step is not used up, and the debt is `contacted`, never `contact_failed`.
 */
import { expect, test } from '@jest/globals';
import { signedInTenant } from '../support/harness.js';
import { communicationsOf, customerWith, debtRow, engineRigPerFile, offsetToLondon, preparedDebt, statusBecomes } from './support.js';

const rig = engineRigPerFile();

const outage = (status: number, count: number) =>
  fetch(`${rig.channels.sms.url}/_standin/outage`, { method: 'POST', body: JSON.stringify({ status, count }) }).then((r) => expect(r.status).toBe(204));

/**
 * A debt of a new tenant whose one step is an SMS, worked by a worker that retries after 1-2 s and
 * reconciles only after an hour (so any retry comes from the backoff), while the stand-in answers
 * the next `count` submissions `status`; returns the debt, once `contacted`, and its communications.
 */
async function contactedThroughOutage(name: string, mobile: string, status: number, count: number) {
  const t = await signedInTenant();
  const steps = [{ day: 0, delivery_method: 'sms', template: 'default-sms-reminder' }];
  const org = (await t.api.post('/organisations', { name, configurations: { collection_strategy: { steps } } }).expect(201)).body.id;
  const debt = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'mobile_number', value: mobile }]));
  await outage(status, count);
  await rig.worker([t.tenant.tenantId], offsetToLondon(12), {
    ENGINE_RETRY_BASE_SECONDS: '1',
    ENGINE_RETRY_MAX_SECONDS: '2',
    ENGINE_RECONCILE_AFTER_SECONDS: '3600',
  });
  await statusBecomes(debt, 'contacted', 60_000);
  return { debt, communications: await communicationsOf(debt) };
}

test('503s from the SMS API: the SMS is retried with backoff and received once', async () => {
  const { debt, communications } = await contactedThroughOutage('Outage Ltd', '+447911123459', 503, 2);
  const [sms, ...rest] = communications;
  expect(rest).toEqual([]);
  expect(sms).toMatchObject({ delivery_method: 'sms', step: 0, status: expect.stringMatching(/^(sent|delivered)$/), attempts: 3 });
  const received = rig.channels.sms.messages().filter((m) => m.clientRef === sms.id);
  expect(received).toHaveLength(1);
  expect((await debtRow(debt)).status).toBe('contacted');
});

test('a 429 answer likewise waits and goes through once', async () => {
  const { communications } = await contactedThroughOutage('Throttled Ltd', '+447911123460', 429, 1);
  const [sms] = communications;
  expect(sms).toMatchObject({ attempts: 2 });
  expect(rig.channels.sms.messages().filter((m) => m.clientRef === sms.id)).toHaveLength(1);
});

test('the outage control refuses what is not an outage', async () => {
  const res = await fetch(`${rig.channels.sms.url}/_standin/outage`, { method: 'POST', body: JSON.stringify({ status: 404, count: 1 }) });
  expect(res.status).toBe(400);
});
