/**
 * Reconciliation of a lost send (docs/api.md section 13, `send_reconciled`): a worker hands an
 * email to an SMTP server that takes the whole message but withholds its final reply, and is
 * killed while it waits, so the communication stays `queued` with its hand-over time. Another
 * worker, once `ENGINE_RECONCILE_AFTER_SECONDS` have passed, settles it: SMTP cannot be asked
 * whether the server kept the message, so it is `failed` with that reason, recorded once, and
 * never sent again (the local mail server of the second worker never sees its Message-ID).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, type EngineRig } from './support.js';

let rig: EngineRig;

/** An SMTP server that accepts every command and the message's data, then never answers the final `.`. */
interface SilentSmtp {
  url: string;
  /** The raw messages it took. */
  messages: string[];
  close(): Promise<void>;
}

async function silentSmtp(): Promise<SilentSmtp> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let data: string | null = null;
    let buffer = '';
    socket.write('220 silent.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (data !== null) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(data + buffer.slice(0, end));
          // The message is taken; the reply that would say so never comes.
          data = null;
          buffer = buffer.slice(end + 5);
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 silent.test\r\n');
        else if (verb === 'DATA') {
          data = '';
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  rig = await engineRig();
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

test('a worker killed after handing an email over leaves it queued; another reconciles it once: failed, outcome unknown, never sent again', async () => {
  const t = await signedInTenant();
  const org = (await t.api.post('/organisations', { name: 'Lost Sends Ltd' }).expect(201)).body.id as string;
  const id = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'lost@example.org', primary: true }]));
  const silent = await silentSmtp();
  try {
    const noon = offsetToLondon(12);
    const first = await rig.worker([t.tenant.tenantId], noon, { SMTP_URL: silent.url });
    await eventually(() => silent.messages.length > 0, 'the email handed to the silent server', 60_000);
    expect(silent.messages).toHaveLength(1);
    // Killed while it waits for the server's answer: the outcome is never recorded.
    await first.stop('SIGKILL');
    const [lost] = await communicationsOf(id);
    expect(lost).toMatchObject({ status: 'queued', step: 0, provider: null });
    expect(lost.handed_at).not.toBeNull();
    expect(silent.messages[0]).toContain(`${lost.id}@`);

    // The second worker sends through the local mail server; its clock is past the reconcile delay.
    const second = await rig.worker([t.tenant.tenantId], noon + 120, { ENGINE_RECONCILE_AFTER_SECONDS: '60' });
    await eventually(async () => (await testDb()('communications').where({ id: lost.id }).first()).status !== 'queued', 'the lost email reconciled', 60_000);
    const row = await testDb()('communications').where({ id: lost.id }).first();
    expect(row.status).toBe('failed');
    expect(row.status_reason).toMatch(/^outcome unknown after the worker stopped: smtp_cannot_be_asked.*not sent again$/);
    // Still counted as a contact (the server may have kept it): its hand-over time stays.
    expect(row.handed_at).toEqual(lost.handed_at);
    const failedEvents = await testDb()('events')
      .where({ tenant_id: t.tenant.tenantId, type: 'communication.failed' })
      .whereRaw(`data->'object'->>'id' = ?`, [lost.id]);
    expect(failedEvents).toHaveLength(1);
    const sentEvents = await testDb()('events')
      .where({ tenant_id: t.tenant.tenantId, type: 'communication.sent' })
      .whereRaw(`data->'object'->>'id' = ?`, [lost.id]);
    expect(sentEvents).toHaveLength(0);
    expect(await (await fetch(`${second.url}/metrics`)).text()).toMatch(/^worker_changes_total\{[^}]*change="send_reconciled"[^}]*\} 1$/m);

    // Never handed over again: the local mail server has no message with its Message-ID, and step 0 has no other communication.
    const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=1000`)).json()) as Array<{ messageId: string }>;
    expect(mails.filter((m) => m.messageId.includes(lost.id))).toHaveLength(0);
    expect((await communicationsOf(id)).filter((c) => c.step === 0)).toHaveLength(1);
    expect(silent.messages).toHaveLength(1);
    expect((await debtRow(id)).status).not.toBe('prepared');
  } finally {
    await silent.close();
  }
});
