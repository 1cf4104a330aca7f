/**
 * The collection engine (docs/api.md sections 12 and 13) as real processes: workers over the real
 * database, the local SMTP server and SMS stand-in over real sockets, clocks moved by the workers'
 * offsets. A prepared debt is taken in and contacted once by two workers; the email is in the
 * local mail server; a reply by email comes back through the mail server and establishes contact;
 * a customer without details waits in `enriching` until one is added; a template that fails to
 * render makes a `failed` communication with the reason.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import nodemailer from 'nodemailer';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let rig: EngineRig;
let t: Tenant;
let org: string;

beforeAll(async () => {
  rig = await engineRig();
  t = await signedInTenant();
  org = (await t.api.post('/organisations', { name: 'Example Energy Ltd', customer_facing_name: 'Example Energy' }).expect(201)).body.id;
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

const eventCount = async (type: string, objectId: string) =>
  Number((await testDb()('events').where({ tenant_id: t.tenant.tenantId, type }).whereRaw(`data->'object'->>'id' = ?`, [objectId]).count({ n: '*' }))[0]!.n);

test('two workers: each prepared debt is analysed and contacted once, by email in the local mail server; a reply establishes contact', async () => {
  const debts = await Promise.all(
    Array.from({ length: 5 }, async (_, i) =>
      preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: `ann${i}@example.org`, primary: true }])),
    ),
  );
  const noon = offsetToLondon(12);
  await Promise.all([rig.worker([t.tenant.tenantId], noon), rig.worker([t.tenant.tenantId], noon)]);
  for (const id of debts) await statusBecomes(id, 'contacted', 60_000);
  for (const id of debts) {
    const coms = await communicationsOf(id);
    expect(coms).toHaveLength(1);
    expect(coms[0]).toMatchObject({ direction: 'outbound', delivery_method: 'email', status: 'sent', provider: 'smtp', step: 0 });
    expect(await eventCount('debt.analysing', id)).toBe(1);
    expect(await eventCount('debt.contacted', id)).toBe(1);
    expect(await eventCount('communication.sent', coms[0].id)).toBe(1);
    expect((await debtRow(id)).status_whodunnit).toBe('system');
  }
  const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=100`)).json()) as Array<{ id: string; subject: string; messageId: string }>;
  const first = (await communicationsOf(debts[0]!))[0];
  const mail = mails.find((m) => m.messageId === first.provider_reference);
  expect(mail).toMatchObject({ subject: 'Your Example Energy account ACC-1' });

  // The API shows it, with expand.
  const api = await t.api.get(`/communications/${first.id}?expand[]=debt&expand[]=template&expand[]=contact_detail&expand[]=customer`).expect(200);
  expect(api.body).toMatchObject({ object: 'communication', status: 'sent', direction: 'outbound', debt: { id: debts[0], object: 'debt' } });
  expect(api.body.contact_detail).toMatchObject({ object: 'contact_detail', value: 'ann0@example.org' });
  expect((await t.api.get(`/debts/${debts[0]}/communications`).expect(200)).body.data.map((c: { id: string }) => c.id)).toEqual([first.id]);

  // The customer replies to the reply address: the mail server forwards it to the API's inbound endpoint.
  const raw = await (await fetch(`${rig.channels.mail.webUrl}/api/messages/${encodeURIComponent(mail!.id)}/raw`)).text();
  const replyTo = /^Reply-To:\s*(.+)$/im.exec(raw)![1]!.trim();
  const smtp = nodemailer.createTransport({ url: rig.env.SMTP_URL });
  await smtp.sendMail({
    from: 'ann0@example.org',
    to: replyTo,
    subject: 'Re: your account',
    text: 'I will pay next week.',
    inReplyTo: first.provider_reference,
  });
  smtp.close();
  await statusBecomes(debts[0]!, 'contact_established', 30_000);
  const inbound = (await communicationsOf(debts[0]!)).filter((c) => c.direction === 'inbound');
  expect(inbound).toHaveLength(1);
  expect(inbound[0]).toMatchObject({ status: 'received', delivery_method: 'email', body: 'I will pay next week.' });
  expect(await eventCount('communication.received', inbound[0].id)).toBe(1);
});

test('no usable contact detail: the debt waits in enriching; a detail added later takes it back in and it is contacted', async () => {
  const customer = await customerWith(t.api, [{ type: 'email', value: 'gone@example.org', status: 'undeliverable' }]);
  const id = await preparedDebt(t.api, org, customer);
  await statusBecomes(id, 'enriching', 60_000);
  expect(await communicationsOf(id)).toHaveLength(0);
  await t.api.post(`/customers/${customer}/contact_details`, { type: 'email', value: 'new@example.org' }).expect(201);
  await statusBecomes(id, 'contacted', 60_000);
  const [com] = await communicationsOf(id);
  const detail = await testDb()('customer_contact_details').where({ id: com.contact_detail_id }).first();
  expect(detail.value).toBe('new@example.org');
});

test('a template that fails to render makes a failed communication with the reason; the next step still runs', async () => {
  const huge = await t.api
    .post('/communication_templates', {
      name: 'too-long',
      delivery_method: 'email',
      subject: 'Hello',
      body: '{% for i in (1..amounts.remaining) %}x{% endfor %}',
    })
    .expect(201);
  const orgId = (
    await t.api
      .post('/organisations', {
        name: 'Render Co',
        configurations: {
          collection_strategy: {
            steps: [
              { day: 0, delivery_method: 'email', template: 'too-long' },
              { day: 0, delivery_method: 'email', template: 'default-email-first' },
            ],
          },
        },
      })
      .expect(201)
  ).body.id;
  const id = await preparedDebt(t.api, orgId, await customerWith(t.api, [{ type: 'email', value: 'render@example.org' }]), 900_000_000);
  await statusBecomes(id, 'contacted', 60_000);
  const [failed, sent] = await communicationsOf(id);
  expect(failed).toMatchObject({ status: 'failed', step: 0, template_id: huge.body.id, template_version: 1 });
  expect(failed.status_reason).toMatch(/too-long.*failed to render/);
  expect(sent).toMatchObject({ status: 'sent', step: 1 });
  expect(await eventCount('communication.failed', failed.id)).toBe(1);
});
