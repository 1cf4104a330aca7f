/**
 * Fall-back to the next usable channel (docs/api.md section 12, "Details"): a strategy step whose
 * channel cannot reach the customer goes, the same step with the same template, by the strategy's
 * next channel that can, with the message adapted to it: an email template's message as a plain
 * text SMS at the SMS stand-in, an SMS template's message as an HTML email in the local mail
 * server. Never by a channel the strategy does not use: a customer reachable only by a channel
 * outside the strategy waits in `enriching`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let rig: EngineRig;
let t: Tenant;

beforeAll(async () => {
  rig = await engineRig();
  t = await signedInTenant();
  await rig.worker([t.tenant.tenantId], offsetToLondon(12));
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

const organisation = async (steps: unknown[]) =>
  (
    await t.api
      .post('/organisations', { name: 'Fallback Water Ltd', customer_facing_name: 'Fallback Water', configurations: { collection_strategy: { steps } } })
      .expect(201)
  ).body.id as string;

test('an email step goes by SMS to a customer with only a mobile number, as plain text with the payment link', async () => {
  const org = await organisation([
    { day: 0, delivery_method: 'email', template: 'default-email-first' },
    { day: 7, delivery_method: 'sms', template: 'default-sms-reminder' },
  ]);
  const debt = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'mobile_number', value: '+447911123457' }]));
  await statusBecomes(debt, 'contacted');
  const [sent, ...rest] = await communicationsOf(debt);
  expect(rest).toEqual([]);
  expect(sent).toMatchObject({ step: 0, delivery_method: 'sms', status: expect.stringMatching(/^(sent|delivered)$/), subject: null });
  expect(JSON.parse(JSON.stringify(sent.metadata))).toMatchObject({ template_name: 'default-email-first' });
  expect(sent.body).not.toMatch(/<[a-z/]/i);
  expect(sent.body).toMatch(/^Dear [^<>\n]+,\n\n£125\.00 is outstanding on your Fallback Water account\. Please pay at \S+ or reply/);
  const kept = await eventually(async () => {
    const messages = (await (await fetch(`${rig.channels.sms.url}/_standin/messages`)).json()) as Array<{ clientRef: string; text: string; to: string }>;
    return messages.find((m) => m.clientRef === sent.id);
  }, 'the SMS at the stand-in');
  expect(kept).toMatchObject({ to: '447911123457' });
  expect(kept.text).toContain('is outstanding on your Fallback Water account');
});

test('an SMS step goes by email to a customer with only an email address, as HTML with a subject', async () => {
  const org = await organisation([
    { day: 0, delivery_method: 'sms', template: 'default-sms-reminder' },
    { day: 7, delivery_method: 'email', template: 'default-email-final' },
  ]);
  const debt = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'fallback@example.org' }]));
  await statusBecomes(debt, 'contacted');
  const [sent, ...rest] = await communicationsOf(debt);
  expect(rest).toEqual([]);
  expect(sent).toMatchObject({ step: 0, delivery_method: 'email', status: 'sent', subject: 'Fallback Water' });
  expect(sent.body).toMatch(/^<p>Fallback Water: £125\.00 is outstanding\. Pay at \S+ or reply to this message\.<\/p>$/);
  const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=100`)).json()) as Array<{ messageId: string; subject: string }>;
  expect(mails.find((m) => m.messageId === sent.provider_reference)).toMatchObject({ subject: 'Fallback Water' });
});

test('a channel the strategy does not use is never a fall-back: the debt waits in enriching', async () => {
  const org = await organisation([{ day: 0, delivery_method: 'email', template: 'default-email-first' }]);
  const debt = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'mobile_number', value: '+447911123458' }]));
  await statusBecomes(debt, 'enriching');
  expect(await communicationsOf(debt)).toEqual([]);
});
