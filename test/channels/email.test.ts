/**
 * Email over real SMTP (docs/api.md section 13): the SMTP provider sends to the local mail server,
 * which keeps and shows each message; replies and bounces come back through it to an inbound
 * endpoint and are parsed. Faults come from real SMTP servers (smtp-server) that refuse, defer or
 * stop answering, and a port nobody listens on.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import {
  ChannelError,
  bounceAddress,
  createSmtpEmailProvider,
  parseBounce,
  parseInboundEmail,
  replyAddress,
  type ChannelProvider,
  type EmailMessage,
} from '@dms/channels';
import { startLocalMailServer, type LocalMailServer } from '@dms/channels/standin';
import { freePort } from '@dms/tools/processes';
import { startReceiver, type Receiver } from './receiver.js';

const addresses = { domain: 'reply.example.test', key: 'reply-key' };
const inbound = { addresses, messageIdDomain: 'example.test' };
const debtId = 'deb_0123456789abcdefghijABCD';
let n = 0;
const comId = () => `com_${String(++n).padStart(5, '0')}56789abcdefghijABCD`;

let dataDir: string;
let mail: LocalMailServer;
let receiver: Receiver;
let email: ChannelProvider<EmailMessage>;

const message = (communicationId: string, over: Partial<EmailMessage> = {}): EmailMessage => ({
  communicationId,
  debtId,
  to: 'ann@example.org',
  toName: 'Ann Example',
  subject: 'Your Example Energy account',
  html: '<p>Dear Ann, &pound;100.00 is due.</p>',
  ...over,
});

async function failure(p: Promise<unknown>): Promise<ChannelError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChannelError);
  return err as ChannelError;
}

async function rawOf(id: string): Promise<Buffer> {
  return Buffer.from(await (await fetch(`${mail.webUrl}/api/messages/${id}/raw`)).arrayBuffer());
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dms-mail-'));
  receiver = await startReceiver();
  mail = await startLocalMailServer({ dataDir, replyDomain: addresses.domain, inbound: { url: `${receiver.url}/inbound-mail`, secret: 'inbound-secret' } });
  email = createSmtpEmailProvider({ url: mail.smtpUrl, from: 'Example Energy <collections@example.test>', addresses, timeoutSeconds: 5 });
});

afterAll(async () => {
  await email.close();
  await mail.stop();
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('sending', () => {
  test('an email carries its identity: Message-ID from the communication, the debt reply address, the bounce address as envelope sender', async () => {
    const id = comId();
    const result = await email.send(message(id));
    expect(result).toMatchObject({ provider: 'smtp', providerReference: `<${id}@example.test>` });

    const kept = mail.messages().find((m) => m.messageId === `<${id}@example.test>`)!;
    expect(kept).toMatchObject({ direction: 'outbound', envelope: { from: bounceAddress(id, addresses), to: ['ann@example.org'] } });
    expect(existsSync(join(dataDir, 'mail', `${kept.id}.eml`))).toBe(true);
    const parsed = await simpleParser(await rawOf(kept.id));
    expect(parsed.messageId).toBe(`<${id}@example.test>`);
    expect(parsed.replyTo?.value[0]?.address).toBe(replyAddress(debtId, addresses));
    expect(parsed.from?.value[0]).toEqual({ name: 'Example Energy', address: 'collections@example.test' });
    expect(parsed.to).toMatchObject({ value: [{ name: 'Ann Example', address: 'ann@example.org' }] });
    expect(parsed.subject).toBe('Your Example Energy account');
    expect(parsed.html).toContain('&pound;100.00 is due');
  });

  test('a retry of the same communication carries the same Message-ID, so it is recognisable', async () => {
    const id = comId();
    await email.send(message(id));
    await email.send(message(id));
    expect(mail.messages().filter((m) => m.messageId === `<${id}@example.test>`)).toHaveLength(2);
  });

  test('the web page and the JSON listing show the message, its content escaped', async () => {
    const id = comId();
    await email.send(message(id, { subject: 'Hello <script>alert(1)</script>' }));
    const listed = (await (await fetch(`${mail.webUrl}/api/messages`)).json()) as Array<{ id: string; subject: string }>;
    const kept = listed.find((m) => m.subject.startsWith('Hello <script>'))!;
    expect(listed[0]).toEqual(mail.messages()[0]);
    expect(await (await fetch(`${mail.webUrl}/api/messages?limit=1`)).json()).toEqual([listed[0]]);
    const page = await (await fetch(`${mail.webUrl}/`)).text();
    expect(page).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');
    const one = await fetch(`${mail.webUrl}/messages/${kept.id}`);
    expect(one.status).toBe(200);
    expect(await one.text()).toContain('<iframe sandbox srcdoc="&lt;p&gt;Dear Ann');
  });

  test('reconciliation cannot ask an SMTP server: the answer is unknown, never "send again"', async () => {
    expect(await email.reconcile({ communicationId: comId(), attemptedAt: new Date() })).toMatchObject({
      outcome: 'unknown',
      reason: expect.stringContaining('smtp_cannot_be_asked'),
    });
  });
});

describe('replies and bounces come back', () => {
  test("a customer's reply to the debt's address is forwarded with the bearer secret and parsed", async () => {
    const id = comId();
    const { providerReference } = await email.send(message(id));
    const before = receiver.received.length;
    const res = await fetch(`${mail.webUrl}/api/reply`, {
      method: 'POST',
      body: JSON.stringify({
        to: replyAddress(debtId, addresses),
        from: 'Ann Example <Ann@Example.org>',
        subject: 'Re: account',
        text: 'I can pay £20 a month.',
        inReplyTo: providerReference,
      }),
    });
    expect(res.status).toBe(201);
    const forwarded = (await receiver.waitFor('/inbound-mail', before + 1)).slice(before)[0]!;
    expect(forwarded.headers).toMatchObject({ authorization: 'Bearer inbound-secret', 'content-type': 'message/rfc822' });
    expect(await parseInboundEmail(forwarded.body, { ...inbound, envelopeTo: String(forwarded.headers['x-envelope-to']).split(',') })).toEqual({
      debtId,
      from: { address: 'ann@example.org', name: 'Ann Example' },
      subject: 'Re: account',
      text: 'I can pay £20 a month.',
      messageId: expect.stringMatching(/^<.+@example\.org>$/),
      inReplyToCommunicationId: id,
    });
  });

  test('mail to a reply address whose tag does not verify is not a reply to any debt', async () => {
    const forged = replyAddress(debtId, { ...addresses, key: 'someone-else' });
    const before = receiver.received.length;
    await fetch(`${mail.webUrl}/api/reply`, { method: 'POST', body: JSON.stringify({ to: forged, from: 'x@example.org', text: 'hello' }) });
    const forwarded = (await receiver.waitFor('/inbound-mail', before + 1)).slice(before)[0]!;
    expect(await parseInboundEmail(forwarded.body, inbound)).toBeNull();
  });

  test('a bounce (DSN from the null sender) names the original Message-ID, its communication and the failed recipient', async () => {
    const id = comId();
    await email.send(message(id, { to: 'gone@example.org' }));
    const kept = mail.messages().find((m) => m.messageId === `<${id}@example.test>`)!;
    const before = receiver.received.length;
    const res = await fetch(`${mail.webUrl}/api/messages/${kept.id}/bounce`, { method: 'POST', body: JSON.stringify({ status: '5.1.1' }) });
    expect(res.status).toBe(201);
    const forwarded = (await receiver.waitFor('/inbound-mail', before + 1)).slice(before)[0]!;
    expect(forwarded.headers['x-envelope-from']).toBe('');
    expect(forwarded.headers['x-envelope-to']).toBe(bounceAddress(id, addresses));
    expect(await parseBounce(forwarded.body, inbound)).toEqual([
      {
        originalMessageId: `<${id}@example.test>`,
        communicationId: id,
        recipient: 'gone@example.org',
        action: 'failed',
        status: '5.1.1',
        permanent: true,
        diagnostic: expect.stringContaining('550 5.1.1'),
      },
    ]);
    expect(await parseInboundEmail(forwarded.body, inbound)).toBeNull();
  });

  test('a delayed-delivery report is news, not a permanent bounce', async () => {
    const id = comId();
    await email.send(message(id));
    const kept = mail.messages().find((m) => m.messageId === `<${id}@example.test>`)!;
    const before = receiver.received.length;
    await fetch(`${mail.webUrl}/api/messages/${kept.id}/bounce`, {
      method: 'POST',
      body: JSON.stringify({ action: 'delayed', status: '4.4.1', diagnostic: '421 try again later' }),
    });
    const forwarded = (await receiver.waitFor('/inbound-mail', before + 1)).slice(before)[0]!;
    expect(await parseBounce(forwarded.body, inbound)).toMatchObject([{ communicationId: id, action: 'delayed', status: '4.4.1', permanent: false }]);
  });
});

describe('failures say whether the email may have left', () => {
  test('a recipient refused at RCPT TO is rejected for good (recipient_rejected)', async () => {
    await fetch(`${mail.webUrl}/api/reject`, { method: 'POST', body: JSON.stringify({ address: 'nobody@example.org' }) });
    const err = await failure(email.send(message(comId(), { to: 'nobody@example.org' })));
    expect([err.outcome, err.code]).toEqual(['rejected', 'recipient_rejected']);
  });

  test('a server nobody listens on: not_sent', async () => {
    const closed = createSmtpEmailProvider({ url: `smtp://127.0.0.1:${await freePort()}`, from: 'c@example.test', addresses, timeoutSeconds: 2 });
    const err = await failure(closed.send(message(comId())));
    await closed.close();
    expect(err.outcome).toBe('not_sent');
  });

  /** A real SMTP server whose answer to the end of the message data is scripted. */
  async function scripted(answer: 'hang' | { code: number; message: string }) {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          if (answer !== 'hang') callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        });
      },
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
    const provider = createSmtpEmailProvider({ url: `smtp://127.0.0.1:${port}`, from: 'c@example.test', addresses, timeoutSeconds: 1 });
    return {
      provider,
      close: async () => {
        await provider.close();
        await new Promise<void>((r) => server.close(() => r()));
      },
    };
  }

  test('4xx at the end of data: not_sent (deferred); 5xx: rejected', async () => {
    const deferring = await scripted({ code: 451, message: 'try again later' });
    const refusing = await scripted({ code: 554, message: 'message refused' });
    try {
      expect(await failure(deferring.provider.send(message(comId())))).toMatchObject({ outcome: 'not_sent', code: 'smtp_451' });
      expect(await failure(refusing.provider.send(message(comId())))).toMatchObject({ outcome: 'rejected', code: 'smtp_554' });
    } finally {
      await deferring.close();
      await refusing.close();
    }
  });

  test('no answer after the message data: unknown (the server may have accepted it)', async () => {
    const silent = await scripted('hang');
    try {
      expect((await failure(silent.provider.send(message(comId())))).outcome).toBe('unknown');
    } finally {
      await silent.close();
    }
  });
});
