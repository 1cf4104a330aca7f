/**
 * The reminder of a pay-later promise (docs/api.md section 18 "Pay later", section 13
 * `promise_reminded`), with real workers whose clocks are moved by their offsets and the local SMTP
 * stand-in: a promise due in 3 days is not reminded on day 0 nor day 1, nor on day 2 before the
 * contact hours, and is reminded once on day 2 (the day before), by two workers at once, through the engine's path (the built-in template in the customer's locale, its
 * own portal link, handed to the provider), and not again by a restarted worker; none is sent when
 * the debt is disputed, in a breathing space, paid already, or when the customer refused email
 * and has no other channel.
 */
import { expect, test } from '@jest/globals';
import { insertPromise } from '@dms/domain/portal';
import { addDays } from '@dms/domain/payment-plans';
import { localSavedMethod } from '@dms/payments';
import { signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { checksDone } from '../worker/support.js';
import { communicationsOf, customerWith, engineRigPerFile, offsetToLondon, preparedDebt, statusBecomes } from './support.js';

const rig = engineRigPerFile();

/** The UTC day a worker with clock offset `offsetSeconds` lives in. */
const dayAt = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString().slice(0, 10);

/** The debt's reminders (communications outside the strategy's steps). */
const remindersOf = async (debtId: string) => (await communicationsOf(debtId)).filter((c: { step: number | null }) => c.step === null);

test('a promise due in 3 days: none on day 0 or 1, one on day 2, none again after a restart, none when disputed, protected, paid or unreachable', async () => {
  const t = await signedInTenant();
  const strategy = { steps: [{ day: 0, delivery_method: 'email', template: 'default-email-first' }], contacts_per_7_days: 10 };
  const org = (await t.api.post('/organisations', { name: 'Promises Ltd', configurations: { collection_strategy: strategy } }).expect(201)).body.id;
  const email = (name: string) => [{ type: 'email', value: `${name}@example.org` }];
  const customers = {
    control: await customerWith(t.api, email('promise-control')),
    french: await customerWith(t.api, email('promise-fr'), { preferred_locale: 'fr-FR' }),
    disputed: await customerWith(t.api, email('promise-disputed')),
    breathing: await customerWith(t.api, email('promise-breathing')),
    paid: await customerWith(t.api, email('promise-paid')),
    refused: await customerWith(t.api, email('promise-refused'), { contact_preferences: { channels: ['sms', 'letter'], hours: null, language: null } }),
  };
  const debts = Object.fromEntries(await Promise.all(Object.entries(customers).map(async ([k, c]) => [k, await preparedDebt(t.api, org, c)]))) as Record<
    keyof typeof customers,
    string
  >;
  const day0 = offsetToLondon(12);
  const payOn = addDays(dayAt(day0), 3);
  const promises: Record<string, string> = {};
  for (const [k, debtId] of Object.entries(debts)) {
    const p = await testDb().transaction((trx) =>
      insertPromise(trx, {
        tenantId: t.tenant.tenantId,
        debtId,
        customerId: customers[k as keyof typeof customers],
        amount: 12500,
        currency: 'GBP',
        payOn,
        method: { provider: 'local', ...localSavedMethod('4242424242424242') },
      }),
    );
    promises[k] = p.id;
  }

  // Day 0: the strategy's first step goes out; no reminder.
  const first = await rig.worker([t.tenant.tenantId], day0);
  for (const id of [debts.control, debts.french, debts.disputed, debts.breathing, debts.paid]) await statusBecomes(id, 'contacted');
  await eventually(async () => (await checksDone(first)) >= 3, 'three checks on day 0', 60_000);
  await first.stop('SIGKILL');
  for (const id of Object.values(debts)) expect(await remindersOf(id)).toEqual([]);

  await t.api.post(`/debts/${debts.disputed}/dispute`).expect(200);
  await t.api.post(`/debts/${debts.breathing}/breathing_space`, { kind: 'standard', start_on: dayAt(0), adviser_reference: 'DRS-PR-1' }).expect(200);
  await t.api.post(`/debts/${debts.paid}/payments`, { amount: 12500, currency: 'GBP' }).expect(201);

  // Day 1: still two days before; nothing.
  const second = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 1));
  await eventually(async () => (await checksDone(second)) >= 3, 'three checks on day 1', 60_000);
  await second.stop('SIGKILL');
  for (const id of Object.values(debts)) expect(await remindersOf(id)).toEqual([]);

  const engineState = async (id: string) => testDb()('debts').where({ id }).first('status', 'contacted_at', 'engine_step', 'engine_due_at');
  const before = await engineState(debts.control);

  // Day 2 at 06:00 in London (07:00 in Paris, the French customer's zone), before the contact hours: the reminders wait for 08:00.
  const early = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 2) - 6 * 3600);
  await eventually(
    async () => (await testDb()('payment_promises').where({ id: promises.control }).first()).reminder_next_at ?? Promise.reject(new Error('not yet')),
    'the reminder held back until the contact hours',
    60_000,
  );
  await early.stop('SIGKILL');
  for (const id of Object.values(debts)) expect(await remindersOf(id)).toEqual([]);

  // Day 2 at noon, two workers at once: one reminder each for the control and French debts, handed to the provider.
  const both = await Promise.all([rig.worker([t.tenant.tenantId], offsetToLondon(12, 2)), rig.worker([t.tenant.tenantId], offsetToLondon(12, 2))]);
  for (const id of [debts.control, debts.french]) {
    await eventually(async () => (await remindersOf(id)).some((c: { status: string }) => c.status === 'sent'), `the reminder of ${id} sent`, 60_000);
  }
  for (const w of both) await eventually(async () => (await checksDone(w)) >= 3, 'three checks of each worker on day 2', 60_000);
  await Promise.all(both.map((w) => w.stop('SIGKILL')));
  // A restarted worker on the same day sends nothing again.
  const fourth = await rig.worker([t.tenant.tenantId], offsetToLondon(14, 2));
  await eventually(async () => (await checksDone(fourth)) >= 5, 'five checks of the restarted worker', 60_000);
  await fourth.stop('SIGKILL');

  const [control] = await remindersOf(debts.control);
  expect(await remindersOf(debts.control)).toHaveLength(1);
  expect(control).toMatchObject({
    direction: 'outbound',
    delivery_method: 'email',
    status: 'sent',
    metadata: { template_name: 'default-email-promise-reminder' },
  });
  expect(control.subject).toContain('due tomorrow');
  expect(await testDb()('portal_links').where({ communication_id: control.id })).toHaveLength(1);
  const [french] = await remindersOf(debts.french);
  expect(await remindersOf(debts.french)).toHaveLength(1);
  expect(french).toMatchObject({ status: 'sent', metadata: { template_name: 'default-email-promise-reminder-fr' } });
  expect(french.subject).toContain('demain');
  const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=100`)).json()) as Array<{ id: string; messageId: string }>;
  const mail = mails.find((m) => m.messageId === control.provider_reference);
  const raw = await (await fetch(`${rig.channels.mail.webUrl}/api/messages/${encodeURIComponent(mail!.id)}/raw`)).text();
  // Its own portal link, with the token the stored body holds only redacted.
  expect(raw.replace(/=\r?\n/g, '')).toMatch(/\/l\/[A-Za-z0-9_-]{43}/);
  expect(control.body).toContain('/l/[link-token]');
  // A message outside the strategy: the debt's status and steps are as they were.
  expect(await engineState(debts.control)).toEqual(before);
  const marked = await testDb()('payment_promises').where({ id: promises.control }).first();
  expect(marked).toMatchObject({ status: 'active', reminder_communication_id: control.id });

  // Disputed, in a breathing space, paid already, or only reachable by a refused channel: none, and not marked.
  const statuses = await testDb()('debts').whereIn('id', [debts.disputed, debts.breathing, debts.paid]).orderBy('id').select('id', 'status');
  expect(Object.fromEntries(statuses.map((r: { id: string; status: string }) => [r.id, r.status]))).toEqual({
    [debts.disputed]: 'disputed',
    [debts.breathing]: 'legal_protection',
    [debts.paid]: 'paid',
  });
  // The refused customer's promise was looked at and held back (no channel it accepts), not skipped unseen.
  expect((await testDb()('payment_promises').where({ id: promises.refused }).first()).reminder_next_at).not.toBeNull();
  for (const k of ['disputed', 'breathing', 'paid', 'refused'] as const) {
    expect(await remindersOf(debts[k])).toEqual([]);
    expect((await testDb()('payment_promises').where({ id: promises[k] }).first()).reminder_communication_id).toBeNull();
  }
}, 420_000); // six worker starts, each waited for up to 60 s
