/**
 * SMS over real HTTP (docs/api.md section 13): the Vonage provider sends to the SMS stand-in
 * (Vonage SMS API shape), which keeps each message and sends signed delivery receipts to a
 * callback receiver; receipts and inbound messages are verified (a wrong signature, a replay and a
 * stale timestamp are refused) and parsed; failures are simulated by the stand-in; sends whose
 * outcome was lost are reconciled through the Reports API shape by client reference.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChannelError,
  SignatureError,
  createVonageSmsProvider,
  memoryReplayGuard,
  parseVonageInbound,
  parseVonageReceipt,
  type ChannelProvider,
  type SmsMessage,
  type VonageOptions,
} from '@dms/channels';
import { startLocalSmsServer, type LocalSmsServer } from '@dms/channels/standin';
import { freePort } from '@dms/tools/processes';
import { startReceiver, type Receiver } from './receiver.js';

const account = { apiKey: 'abcd1234', apiSecret: 'api-secret-0123', signatureSecret: 'signature-secret-0123', signatureMethod: 'sha256' as const };
let n = 0;
const comId = () => `com_${String(++n).padStart(5, '0')}56789abcdefghijABCD`;

let dataDir: string;
let receiver: Receiver;
let standin: LocalSmsServer;
let sms: ChannelProvider<SmsMessage>;

const options = (over: Partial<VonageOptions> = {}): VonageOptions => ({
  apiUrl: standin.url,
  reportsUrl: standin.url,
  from: 'ExampleCo',
  settleSeconds: 0,
  timeoutSeconds: 5,
  ...account,
  ...over,
});
const verify = () => ({ secret: account.signatureSecret, method: account.signatureMethod, apiKey: account.apiKey, replayGuard: memoryReplayGuard() });
const paramsOf = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, string>;

/** Receipts that reached the receiver for `messageId`. */
async function receiptsFor(messageId: string, count = 1) {
  await standin.settled();
  const got = receiver.received.filter((r) => r.path === '/dlr' && paramsOf(r.body).messageId === messageId);
  expect(got.length).toBeGreaterThanOrEqual(count);
  return got.map((r) => paramsOf(r.body));
}

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: Error) => e,
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dms-sms-'));
  receiver = await startReceiver();
  standin = await startLocalSmsServer({
    dataDir,
    ...account,
    receiptUrl: `${receiver.url}/dlr`,
    inboundUrl: `${receiver.url}/sms-in`,
    receiptDelayMs: 10,
    recordsPageSize: 2,
  });
  sms = createVonageSmsProvider(options());
});

afterAll(async () => {
  await sms.close();
  await standin.stop();
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('sending', () => {
  test('a signed request is accepted; the message is kept with its client-ref and a signed receipt comes back', async () => {
    const id = comId();
    const result = await sms.send({ communicationId: id, to: '+447700900001', text: 'Example Energy: £100.00 is due. Reply to this number.' });
    expect(result).toMatchObject({
      provider: 'vonage',
      providerReference: expect.stringMatching(/^[0-9A-F]{16}$/),
      details: { parts: [result.providerReference], 'message-count': 1 },
    });
    expect(existsSync(join(dataDir, 'sms', `${result.providerReference}.json`))).toBe(true);
    expect(standin.messages().find((m) => m.clientRef === id)).toMatchObject({ to: '447700900001', from: 'ExampleCo', type: 'text' });
    const receipt = (await receiptsFor(result.providerReference))[0]!;
    expect(receipt).toMatchObject({ 'client-ref': id, status: 'delivered', sig: expect.any(String), nonce: expect.any(String), timestamp: expect.any(String) });
    expect(await parseVonageReceipt(receipt, verify())).toMatchObject({
      providerReference: result.providerReference,
      communicationId: id,
      status: 'delivered',
      reason: null,
    });
  });

  test('a long text outside the GSM alphabet goes as unicode in several parts, each with its receipt naming the communication', async () => {
    const id = comId();
    const result = await sms.send({ communicationId: id, to: '+447700900002', text: `Zahlung fällig — ₹ ${'x'.repeat(100)}` });
    const parts = result.details.parts as string[];
    expect(parts).toHaveLength(2);
    expect(standin.messages().find((m) => m.clientRef === id)?.type).toBe('unicode');
    for (const part of parts) expect((await receiptsFor(part))[0]!['client-ref']).toBe(id);
  });

  test('api_secret instead of a signature works too; wrong credentials or a wrong signature secret are rejected', async () => {
    const plain = createVonageSmsProvider(options({ signatureSecret: undefined }));
    const badSecret = createVonageSmsProvider(options({ signatureSecret: undefined, apiSecret: 'wrong-secret' }));
    const badSignature = createVonageSmsProvider(options({ signatureSecret: 'wrong-signature-secret' }));
    try {
      await expect(plain.send({ communicationId: comId(), to: '+447700900003', text: 'hi' })).resolves.toMatchObject({ provider: 'vonage' });
      expect(await failure(badSecret.send({ communicationId: comId(), to: '+447700900003', text: 'hi' }))).toMatchObject({
        outcome: 'rejected',
        code: 'vonage_status_4',
      });
      expect(await failure(badSignature.send({ communicationId: comId(), to: '+447700900003', text: 'hi' }))).toMatchObject({
        outcome: 'rejected',
        code: 'vonage_status_14',
      });
    } finally {
      await Promise.all([plain.close(), badSecret.close(), badSignature.close()]);
    }
  });
});

describe('receipts are authenticated', () => {
  test('a tampered receipt, a replayed one and a stale one are refused', async () => {
    const { providerReference } = await sms.send({ communicationId: comId(), to: '+447700900004', text: 'hello' });
    const receipt = (await receiptsFor(providerReference))[0]!;
    const guarded = verify();
    await expect(parseVonageReceipt({ ...receipt, status: 'failed' }, guarded)).rejects.toMatchObject({ code: 'bad_signature' });
    await expect(parseVonageReceipt({ ...receipt, sig: receipt.sig!.replace(/^./, (c) => (c === '0' ? '1' : '0')) }, guarded)).rejects.toMatchObject({
      code: 'bad_signature',
    });
    await expect(parseVonageReceipt(receipt, guarded)).resolves.toMatchObject({ status: 'delivered' });
    await expect(parseVonageReceipt(receipt, guarded)).rejects.toMatchObject({ code: 'replayed' });
    const later = Date.now() + 10 * 60_000;
    await expect(parseVonageReceipt(receipt, { ...verify(), now: () => later })).rejects.toMatchObject({ code: 'stale_timestamp' });
    await expect(parseVonageReceipt(receipt, { ...verify(), apiKey: 'zzzz9999' })).rejects.toBeInstanceOf(SignatureError);
  });

  test('a receipt the receiver failed to take is sent again, signed afresh, with the same content', async () => {
    receiver.answers.push(500);
    const { providerReference } = await sms.send({ communicationId: comId(), to: '+447700900005', text: 'hello' });
    const attempts = await receiptsFor(providerReference, 2);
    expect(attempts[0]!.nonce).not.toBe(attempts[1]!.nonce);
    const guarded = verify();
    const parsed = await Promise.all(attempts.map((a) => parseVonageReceipt(a, guarded)));
    expect(parsed[0]).toEqual(parsed[1]);
  });
});

describe('failures the stand-in simulates', () => {
  test('a number that no longer exists: the receipt says failed with err-code 3, which is bounced', async () => {
    await fetch(`${standin.url}/_standin/numbers`, { method: 'POST', body: JSON.stringify({ msisdn: '+447700900010', status: 'failed', errCode: '3' }) });
    const { providerReference } = await sms.send({ communicationId: comId(), to: '+447700900010', text: 'hello' });
    const receipt = (await receiptsFor(providerReference))[0]!;
    expect(await parseVonageReceipt(receipt, verify())).toMatchObject({ status: 'bounced', reason: 'vonage failed, err-code 3' });
  });

  test('an expired message is failed, not bounced', async () => {
    await fetch(`${standin.url}/_standin/numbers`, { method: 'POST', body: JSON.stringify({ msisdn: '447700900011', status: 'expired', errCode: '2' }) });
    const { providerReference } = await sms.send({ communicationId: comId(), to: '+447700900011', text: 'hello' });
    expect(await parseVonageReceipt((await receiptsFor(providerReference))[0]!, verify())).toMatchObject({ status: 'failed' });
  });

  test('refused at submission: rejected with the status; an invalid number likewise', async () => {
    await fetch(`${standin.url}/_standin/numbers`, { method: 'POST', body: JSON.stringify({ msisdn: '447700900012', status: 'submit_error' }) });
    expect(await failure(sms.send({ communicationId: comId(), to: '+447700900012', text: 'hello' }))).toMatchObject({
      outcome: 'rejected',
      code: 'vonage_status_6',
    });
    expect(await failure(sms.send({ communicationId: comId(), to: '+44', text: 'hello' }))).toMatchObject({ outcome: 'rejected', code: 'vonage_status_3' });
  });

  test('an outage (5xx) or throttling (429) answer: not_sent, the message not taken; the next submission goes through', async () => {
    const to = '+447700900014';
    for (const status of [503, 500, 429]) {
      await fetch(`${standin.url}/_standin/outage`, { method: 'POST', body: JSON.stringify({ status, count: 1 }) });
      const communicationId = comId();
      expect(await failure(sms.send({ communicationId, to, text: 'hello' }))).toMatchObject({ outcome: 'not_sent', code: `http_${status}` });
      expect(standin.messages().some((m) => m.clientRef === communicationId)).toBe(false);
    }
    await expect(sms.send({ communicationId: comId(), to, text: 'hello' })).resolves.toMatchObject({ providerReference: expect.any(String) });
  });

  test('an API nobody listens on: not_sent; one that takes the request and never answers: unknown', async () => {
    const closed = createVonageSmsProvider(options({ apiUrl: `http://127.0.0.1:${await freePort()}` }));
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    const port = await freePort();
    await new Promise<void>((r) => silent.listen(port, '127.0.0.1', () => r()));
    const hanging = createVonageSmsProvider(options({ apiUrl: `http://127.0.0.1:${port}`, timeoutSeconds: 1 }));
    try {
      const refused = await failure(closed.send({ communicationId: comId(), to: '+447700900013', text: 'x' }));
      expect(refused).toBeInstanceOf(ChannelError);
      expect((refused as ChannelError).outcome).toBe('not_sent');
      expect(await failure(hanging.send({ communicationId: comId(), to: '+447700900013', text: 'x' }))).toMatchObject({ outcome: 'unknown' });
    } finally {
      await Promise.all([closed.close(), hanging.close()]);
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('reconciliation by client reference', () => {
  test('a send whose answer was lost is found by its client-ref, across pages of records', async () => {
    const attemptedAt = new Date(Date.now() - 1000);
    const id = comId();
    for (let i = 0; i < 3; i++) await sms.send({ communicationId: comId(), to: '+447700900020', text: `filler ${i}` });
    const { providerReference } = await sms.send({ communicationId: id, to: '+447700900020', text: 'the one' });
    await standin.settled();
    expect(await sms.reconcile({ communicationId: id, attemptedAt })).toEqual({
      outcome: 'sent',
      providerReference,
      details: { status: 'delivered', error_code: '0' },
    });
  });

  test('a send that never arrived is not_found, so sending it now is not a second send', async () => {
    expect(await sms.reconcile({ communicationId: comId(), attemptedAt: new Date(Date.now() - 1000) })).toEqual({ outcome: 'not_found' });
  });

  test('too soon after the attempt the answer is ask_later; without access to the records, unknown', async () => {
    const patient = createVonageSmsProvider(options({ settleSeconds: 600 }));
    const locked = createVonageSmsProvider(options({ apiSecret: 'wrong-secret' }));
    try {
      expect(await patient.reconcile({ communicationId: comId(), attemptedAt: new Date() })).toMatchObject({
        outcome: 'ask_later',
        retryAfterSeconds: expect.any(Number),
      });
      expect(await locked.reconcile({ communicationId: comId(), attemptedAt: new Date(Date.now() - 1000) })).toMatchObject({
        outcome: 'unknown',
        reason: expect.stringContaining('401'),
      });
    } finally {
      await Promise.all([patient.close(), locked.close()]);
    }
  });
});

describe('inbound SMS', () => {
  test('a reply the stand-in sends to the inbound URL is signed and parses; tampered, it is refused', async () => {
    const before = receiver.received.filter((r) => r.path === '/sms-in').length;
    const res = await fetch(`${standin.url}/_standin/inbound`, {
      method: 'POST',
      body: JSON.stringify({ from: '+447700900001', text: 'I will pay on Friday' }),
    });
    expect(res.status).toBe(201);
    const got = (await receiver.waitFor('/sms-in', before + 1)).slice(before)[0]!;
    const params = paramsOf(got.body);
    expect(await parseVonageInbound(params, verify())).toEqual({
      providerReference: params.messageId,
      from: '+447700900001',
      to: '447700900000',
      text: 'I will pay on Friday',
      receivedAt: expect.any(Date),
      concat: null,
    });
    await expect(parseVonageInbound({ ...params, text: 'I will never pay' }, verify())).rejects.toMatchObject({ code: 'bad_signature' });
  });
});
