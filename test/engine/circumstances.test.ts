/**
 * The collection engine and a customer's circumstances (docs/api.md sections 12 and 18), clocks
 * moved by the workers' offsets: no communication goes out while a standard breathing space runs
 * (60 days) nor during the 30-day contact pause of a vulnerability disclosure; a control debt gets
 * its next step meanwhile; once each ends, the worker resumes the debt and contact resumes.
 */
import { expect, test } from '@jest/globals';
import { signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { eventTypesFor } from '../support/debts.js';
import { checksDone } from '../worker/support.js';
import { communicationsOf, customerWith, debtRow, engineRigPerFile, offsetToLondon, preparedDebt, statusBecomes } from './support.js';

const rig = engineRigPerFile();

const today = () => new Date().toISOString().slice(0, 10);

test('no contact during a breathing space or the 30-day pause of a disclosure; contact resumes after each', async () => {
  const t = await signedInTenant();
  const strategy = {
    steps: [
      { day: 0, delivery_method: 'email', template: 'default-email-first' },
      { day: 2, delivery_method: 'email', template: 'default-email-final' },
    ],
    contacts_per_7_days: 10,
  };
  const org = (await t.api.post('/organisations', { name: 'Circumstances Ltd', configurations: { collection_strategy: strategy } }).expect(201)).body.id;
  const ids = await Promise.all(
    [0, 1, 2].map(async (i) => preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: `circ${i}@example.org` }]))),
  );
  const [control, breathing, vulnerable] = ids as [string, string, string];
  const first = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  for (const id of ids) await statusBecomes(id, 'contacted');
  await first.stop('SIGKILL');

  await t.api.post(`/debts/${breathing}/breathing_space`, { kind: 'standard', start_on: today(), adviser_reference: 'DRS-ENG-1' }).expect(200);
  await t.api.post(`/debts/${vulnerable}/vulnerability`, { kind: 'health', details: 'In hospital for a month.' }).expect(200);

  // Three days on: the control debt gets step 1; neither of the others hears anything.
  const day3 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 3));
  await eventually(async () => (await communicationsOf(control)).length >= 2, 'step 1 of the control debt', 60_000);
  await day3.stop('SIGKILL');
  expect(await communicationsOf(breathing)).toHaveLength(1);
  expect(await communicationsOf(vulnerable)).toHaveLength(1);
  expect((await debtRow(vulnerable)).status).toBe('follow_up_required');

  // Day 29: still inside the 30-day pause; nothing goes out.
  const day29 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 29));
  await eventually(async () => (await checksDone(day29)) >= 3, 'three checks of the day-29 worker', 60_000);
  await day29.stop('SIGKILL');
  expect((await debtRow(vulnerable)).status).toBe('follow_up_required');
  expect(await communicationsOf(vulnerable)).toHaveLength(1);

  // Day 31: the disclosure's pause is over: the worker resumes the debt and the engine contacts it again; the breathing space holds.
  const day31 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 31));
  await eventually(async () => (await communicationsOf(vulnerable)).length >= 2, 'contact after the 30-day pause', 60_000);
  await day31.stop('SIGKILL');
  expect((await debtRow(breathing)).status).toBe('legal_protection');
  expect(await communicationsOf(breathing)).toHaveLength(1);

  // Day 61: the standard breathing space (60 days from today) is over: contact resumes.
  const day61 = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 61));
  await eventually(async () => (await communicationsOf(breathing)).length >= 2, 'contact after the breathing space', 60_000);
  await day61.stop('SIGKILL');
  expect(await eventTypesFor(t.tenant.tenantId, breathing)).toEqual(expect.arrayContaining(['debt.legal_protection', 'debt.resumed']));
  expect(await eventTypesFor(t.tenant.tenantId, vulnerable)).toEqual(expect.arrayContaining(['debt.follow_up_required', 'debt.resumed']));
}, 300_000); // five worker starts, each waited for up to 60 s
