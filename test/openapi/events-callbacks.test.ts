/**
 * The declared events (OpenAPI `x-events`, docs/api.md sections 7 and 13) of the provider
 * callbacks and the test helpers that simulate them, on messages the real collection engine sent
 * through the local stand-ins: an email reply and a bounce report (`POST /callbacks/email`, with
 * the inbound-mail secret), signed SMS delivery receipts (delivered; an unusable number, which
 * bounces), inbound SMS sent by the SMS stand-in (a reply; a `STOP`, which also changes the
 * customer's contact preferences), and the bounce and SMS-reply test helpers. The worker is
 * stopped before the checked requests, so every new event is theirs.
 */
import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import { signParams, type SignatureMethod } from '@dms/channels';
import { composeDsn } from '@dms/channels/standin';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { API_URL, closeHarness } from '../support/harness.js';
import { INBOUND_SECRET, communicationsOf, customerWith, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from '../engine/support.js';
import { bothModes, type Mode } from '../test-mode/support.js';
import { eventCheck, expectChecked } from './event-check.js';

type Json = Record<string, any>;

let doc: Json;
let rig: EngineRig;
let mode: Mode;

beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
  rig = await engineRig();
  ({ test: mode } = await bothModes());
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

/** A UK mobile number of this run (a range libphonenumber holds valid throughout), E.164 without the `+` (as Vonage writes it). */
const mobile = () => `447400${String(randomInt(1_000_000)).padStart(6, '0')}`;

/** The outbound communication the engine sent for `debt`. */
async function sentFor(debt: string): Promise<{ id: string; provider_reference: string }> {
  const [sent] = await communicationsOf(debt);
  expect(sent).toMatchObject({ direction: 'outbound', status: 'sent' });
  return sent;
}

/** The kept email of communication `com` at the local mail server, with its header section. */
async function mailOf(com: { provider_reference: string }) {
  const web = rig.channels.mail.webUrl;
  const mails = (await (await fetch(`${web}/api/messages?limit=1000`)).json()) as Array<{
    id: string;
    messageId: string;
    envelope: { from: string; to: string[] };
  }>;
  const mail = mails.find((m) => m.messageId === com.provider_reference)!;
  const raw = await (await fetch(`${web}/api/messages/${encodeURIComponent(mail.id)}/raw`)).text();
  return { mail, headers: raw.slice(0, raw.search(/\r?\n\r?\n/)) };
}

/** `raw` posted to the inbound-mail callback as the mail server forwards it. */
const inboundMail = (raw: string | Buffer, envelopeTo: string) =>
  request(rig.callbacks.url)
    .post('/callbacks/email')
    .set('Authorization', `Bearer ${INBOUND_SECRET}`)
    .set('Content-Type', 'message/rfc822')
    .set('X-Envelope-To', envelopeTo)
    .send(raw);

/** The SMS stand-in's receipt for communication `id`, now saying `status` (`err-code` `errCode`), signed afresh. */
function receipt(id: string, status: string, errCode: string): Record<string, string> {
  const unsigned = rig.channels.sms.messages().find((m) => m.clientRef === id)!.receipts[0]!.params;
  return signParams({ ...unsigned, status, 'err-code': errCode }, rig.env.SMS_SIGNATURE_SECRET!, rig.env.SMS_SIGNATURE_METHOD as SignatureMethod);
}

test('the provider callbacks and the bounce and reply test helpers record only events they declare', async () => {
  const { api } = mode;
  const org = async (delivery_method: string, template: string) =>
    (
      await api
        .post('/organisations', { name: 'Events Callbacks Ltd', configurations: { collection_strategy: { steps: [{ day: 0, delivery_method, template }] } } })
        .expect(201)
    ).body.id as string;
  const [emailOrg, smsOrg] = [await org('email', 'default-email-first'), await org('sms', 'default-sms-reminder')];
  const emailDebt = async (tag: string) =>
    preparedDebt(api, emailOrg, await customerWith(api, [{ type: 'email', value: `${tag}-${randomUUID()}@example.org` }]));
  // Each number's stand-in receipt is interim news (it changes nothing): the checked receipts say what happened.
  const smsDebt = async (number: string) => {
    const set = await fetch(`${rig.channels.sms.url}/_standin/numbers`, {
      method: 'POST',
      body: JSON.stringify({ msisdn: number, status: 'accepted', errCode: '0' }),
    });
    expect(set.status).toBe(204);
    return preparedDebt(api, smsOrg, await customerWith(api, [{ type: 'mobile_number', value: `+${number}` }]));
  };
  const [delivered, bounced, stopped] = [mobile(), mobile(), mobile()];
  const debts = {
    replied: await emailDebt('reply'),
    dsn: await emailDebt('dsn'),
    helper: await emailDebt('helper'),
    delivered: await smsDebt(delivered),
    bounced: await smsDebt(bounced),
    stopped: await smsDebt(stopped),
  };
  const worker = await rig.worker([mode.tenant.tenantId], offsetToLondon(12));
  for (const debt of Object.values(debts)) await statusBecomes(debt, 'contacted');
  await rig.channels.sms.settled();
  await worker.stop();

  const { run, results } = await eventCheck(api, doc);
  // Email: a reply to the debt's reply address, then a bounce report (RFC 3464) of another debt's only address.
  const replied = await mailOf(await sentFor(debts.replied));
  const replyTo = /^Reply-To:\s*(?:.*<)?([^<>\s]+@[^<>\s]+)>?\s*$/im.exec(replied.headers)![1]!;
  const reply = [
    `From: ${replied.mail.envelope.to[0]}`,
    `To: ${replyTo}`,
    'Subject: Re: your account',
    `Message-ID: <${randomUUID()}@example.org>`,
    '',
    'I can pay next week.',
  ];
  expect(await run('post', '/callbacks/email', inboundMail(reply.join('\r\n'), replyTo))).toMatchObject({ recorded: true });
  const failed = await mailOf(await sentFor(debts.dsn));
  const dsn = await composeDsn({ to: failed.mail.envelope.from, recipient: failed.mail.envelope.to[0]!, originalHeaders: failed.headers });
  expect(await run('post', '/callbacks/email', inboundMail(dsn, failed.mail.envelope.from))).toMatchObject({ recorded: true });
  const helperSent = await sentFor(debts.helper);
  expect(await run('post', '/test_helpers/communications/{id}/bounce', api.post(`/test_helpers/communications/${helperSent.id}/bounce`))).toMatchObject({
    status: 'bounced',
  });

  // SMS: signed receipts (delivered; rejected with err-code 3, an unusable number: bounced).
  const receipts = request(rig.callbacks.url);
  for (const [debt, status, errCode] of [
    [debts.delivered, 'delivered', '0'],
    [debts.bounced, 'rejected', '3'],
  ] as const) {
    const sent = await sentFor(debt);
    expect(await run('post', '/callbacks/sms/receipts', receipts.post('/callbacks/sms/receipts').send(receipt(sent.id, status, errCode)))).toMatchObject({
      recorded: true,
    });
  }
  // Inbound SMS, sent and signed by the stand-in: a reply, and a STOP (the customer refuses SMS).
  for (const [from, text] of [
    [delivered, 'Can I pay next month?'],
    [stopped, 'STOP'],
  ] as const) {
    const sent = await run('post', '/callbacks/sms/inbound', request(rig.channels.sms.url).post('/_standin/inbound').send({ from, text }));
    expect(sent.answer).toBe(200);
  }
  const customer = (await api.get(`/debts/${debts.stopped}`).expect(200)).body.customer as string;
  expect((await api.get(`/customers/${customer}`).expect(200)).body.contact_preferences).toMatchObject({
    channels: ['email', 'letter'],
    changed_by: 'sms_stop',
  });
  // The test helper's SMS STOP is recorded as the real one is.
  await run('post', '/test_helpers/debts/{id}/inbound', api.post(`/test_helpers/debts/${debts.delivered}/inbound`, { delivery_method: 'sms', text: 'stop' }));
  expectChecked(results, 'callbacks');
});
