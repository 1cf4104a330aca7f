/**
 * The local SMS stand-in of `npm start` and the tests: an HTTP server with the shape of the Vonage
 * SMS API (Vonage API reference, "SMS API" and "Reports API"; docs/api.md section 13), keeping
 * every message under `<dataDir>/sms/<message-id>.json`.
 *
 * - `POST /sms/json` (form or JSON): checks `api_key` and `api_secret` or a valid signature, splits
 *   the text into parts (160/153 GSM characters, 70/67 otherwise), answers as Vonage does, then
 *   sends each part's signed delivery receipt (`sig`, `timestamp`, `nonce`) to the request's
 *   `callback` or the default receipt URL, retrying up to three times (each attempt signed afresh)
 *   while the receiver answers an error.
 * - `GET /v2/reports/records` (HTTP Basic `api_key:api_secret`): the outbound records received in
 *   `date_start`..`date_end` (at most 24 hours apart) or with the message ids in `id`, in pages
 *   linked by `_links.next.href`: what reconciliation searches for a `client-ref`.
 * - Control (not Vonage): `POST /_standin/numbers` `{msisdn, status, errCode?}` makes later SMS to
 *   that number get that final receipt status (`failed`, `rejected`, `expired`...) or, with status
 *   `submit_error`, refused at submission (status 6); `POST /_standin/inbound` `{from, text, to?}`
 *   sends a signed inbound message to the inbound URL; `GET /_standin/messages` lists what was kept;
 *   `POST /_standin/outage` `{status, count}` makes the next `count` submissions answer HTTP
 *   `status` (a 5xx or 429) without taking the message, as a provider's outage or throttling does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { isGsm7 } from '../sms/vonage.js';
import { signParams, verifySignedParams, type SignatureMethod } from '../sms/signature.js';
import { closeServer, createStandinServer, listen, requestParams, same, type StandinRequest, type StandinResponse } from './http.js';
import { reportRecords, type StoredSms } from './sms-records.js';

export interface LocalSmsServerOptions {
  dataDir: string;
  /** Port (default 0: any free port). */
  port?: number;
  apiKey: string;
  apiSecret: string;
  signatureSecret: string;
  signatureMethod: SignatureMethod;
  /** Where receipts go when a request names no `callback`. */
  receiptUrl?: string;
  /** Where inbound messages go. */
  inboundUrl?: string;
  /** Our virtual number (the `to` of inbound messages). */
  virtualNumber?: string;
  /** Milliseconds before a receipt is sent (default 50). */
  receiptDelayMs?: number;
  /** Records per Reports API page (default 1000). */
  recordsPageSize?: number;
}

/** One submitted SMS as kept. */
export type { StoredSms } from './sms-records.js';

export interface LocalSmsServer {
  /** Base URL: both `SMS_API_URL` and `SMS_REPORTS_URL`. */
  url: string;
  messages(): StoredSms[];
  /** Resolves when every receipt scheduled so far has been delivered or given up. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** Vonage-style message id: 16 hex digits. */
const messageId = () => randomBytes(8).toString('hex').toUpperCase();

function parts(text: string, gsm: boolean): number {
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  const length = [...text].length;
  return length <= single ? 1 : Math.ceil(length / multi);
}

/** Vonage's `message-timestamp` format, UTC. */
const vonageTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** Starts the SMS stand-in. */
export async function startLocalSmsServer(options: LocalSmsServerOptions): Promise<LocalSmsServer> {
  const dir = join(options.dataDir, 'sms');
  mkdirSync(dir, { recursive: true });
  const kept = new Map<string, StoredSms>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('inbound-'))) {
    const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as StoredSms;
    kept.set(m.messageIds[0]!, m);
  }
  const outcomes = new Map<string, { status: string; errCode: string }>();
  /** Submissions still to refuse with an HTTP status (`/_standin/outage`). */
  const outage = { answer: 0, left: 0 };
  const pending = new Set<Promise<void>>();
  const save = (m: StoredSms) => writeFile(join(dir, `${m.messageIds[0]}.json`), JSON.stringify(m, null, 2));

  function signed(params: Record<string, string>): Record<string, string> {
    return signParams({ ...params, nonce: randomUUID() }, options.signatureSecret, options.signatureMethod);
  }

  async function post(url: string, params: Record<string, string>): Promise<number | string> {
    try {
      const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
      await res.body.dump();
      return res.statusCode;
    } catch (err) {
      return (err as Error).message;
    }
  }

  async function deliverReceipts(sms: StoredSms): Promise<void> {
    await new Promise((r) => setTimeout(r, options.receiptDelayMs ?? 50));
    const url = sms.callback ?? options.receiptUrl;
    if (!url) return;
    for (const id of sms.messageIds) {
      const now = new Date();
      const fields: Record<string, string> = {
        msisdn: sms.to,
        to: sms.from,
        'network-code': '23410',
        messageId: id,
        price: '0.03330000',
        status: sms.status,
        scts: now.toISOString().slice(2, 16).replace(/[-T:]/g, ''),
        'err-code': sms.errCode,
        'api-key': options.apiKey,
        ...(sms.clientRef ? { 'client-ref': sms.clientRef } : {}),
        'message-timestamp': vonageTime(now),
      };
      const receipt = { params: fields, attempts: [] as Array<number | string> };
      sms.receipts.push(receipt);
      // Each attempt is signed afresh (new timestamp and nonce): a retry is a new request
      // carrying the same receipt, so the receiver must be idempotent by messageId and status.
      for (let attempt = 0; attempt < 3; attempt++) {
        const answer = await post(url, signed(fields));
        receipt.attempts.push(answer);
        if (typeof answer === 'number' && answer < 300) break;
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
    await save(sms);
  }

  async function authenticate(params: Record<string, string>): Promise<string | null> {
    if (params.api_key !== options.apiKey) return '4';
    if (params.sig) {
      try {
        await verifySignedParams(params, { secret: options.signatureSecret, method: options.signatureMethod });
        return null;
      } catch {
        return '14';
      }
    }
    return params.api_secret && same(params.api_secret, options.apiSecret) ? null : '4';
  }

  const refuse = (status: string, text: string): StandinResponse => ({
    status: 200,
    body: { 'message-count': '1', messages: [{ status, 'error-text': text }] },
  });

  async function submit(req: StandinRequest): Promise<StandinResponse> {
    if (outage.left > 0) {
      outage.left -= 1;
      return { status: outage.answer, body: { error: 'stand-in outage' } };
    }
    const p = requestParams(req);
    const denied = await authenticate(p);
    if (denied) return refuse(denied, denied === '14' ? 'Invalid Signature' : 'Bad Credentials');
    if (!p.from || !p.to || !p.text) return refuse('2', `Missing ${['from', 'to', 'text'].filter((k) => !p[k]).join(', ')}`);
    if (!/^\d{7,15}$/.test(p.to)) return refuse('3', 'Invalid to address');
    if ((p['client-ref'] ?? '').length > 100) return refuse('3', 'client-ref longer than 100 characters');
    const outcome = outcomes.get(p.to) ?? { status: 'delivered', errCode: '0' };
    if (outcome.status === 'submit_error') return refuse('6', 'Invalid Message: the destination is not routable');
    const gsm = p.type !== 'unicode';
    if (gsm && !isGsm7(p.text)) return refuse('3', 'text has characters outside the GSM alphabet: use type=unicode');
    const ids = Array.from({ length: parts(p.text, gsm) }, messageId);
    const sms: StoredSms = {
      messageIds: ids,
      clientRef: p['client-ref'] ?? null,
      from: p.from,
      to: p.to,
      text: p.text,
      type: gsm ? 'text' : 'unicode',
      dateReceived: new Date().toISOString(),
      callback: p.callback || null,
      status: outcome.status,
      errCode: outcome.errCode,
      receipts: [],
    };
    kept.set(ids[0]!, sms);
    await save(sms);
    if (!['false', '0'].includes(p['status-report-req'] ?? '')) {
      const delivery = deliverReceipts(sms).finally(() => pending.delete(delivery));
      pending.add(delivery);
    }
    const messages = ids.map((id) => ({
      to: p.to,
      'message-id': id,
      status: '0',
      'remaining-balance': '10.00000000',
      'message-price': '0.03330000',
      network: '23410',
      ...(sms.clientRef ? { 'client-ref': sms.clientRef } : {}),
    }));
    return { status: 200, body: { 'message-count': String(ids.length), messages } };
  }

  function setOutcome(req: StandinRequest): StandinResponse {
    const b = JSON.parse(req.body.toString('utf8')) as { msisdn?: string; status?: string; errCode?: string };
    if (!b.msisdn || !b.status) return { status: 400, body: { error: 'msisdn and status are required' } };
    outcomes.set(b.msisdn.replace(/^\+/, ''), { status: b.status, errCode: b.errCode ?? (b.status === 'delivered' ? '0' : '1') });
    return { status: 204 };
  }

  function setOutage(req: StandinRequest): StandinResponse {
    const b = JSON.parse(req.body.toString('utf8')) as { status?: number; count?: number };
    if (!Number.isInteger(b.status) || (b.status! < 500 && b.status !== 429) || b.status! > 599 || !Number.isInteger(b.count) || b.count! < 0)
      return { status: 400, body: { error: 'status (429 or 5xx) and count (an integer >= 0) are required' } };
    outage.answer = b.status!;
    outage.left = b.count!;
    return { status: 204 };
  }

  async function inbound(req: StandinRequest): Promise<StandinResponse> {
    const b = JSON.parse(req.body.toString('utf8')) as { from?: string; text?: string; to?: string };
    if (!b.from || !b.text) return { status: 400, body: { error: 'from and text are required' } };
    if (!options.inboundUrl) return { status: 409, body: { error: 'no inbound URL is configured' } };
    const now = new Date();
    const params = signed({
      msisdn: b.from.replace(/^\+/, ''),
      to: b.to ?? options.virtualNumber ?? '447700900000',
      messageId: messageId(),
      text: b.text,
      type: isGsm7(b.text) ? 'text' : 'unicode',
      keyword: b.text.trim().split(/\s+/)[0]?.toUpperCase() ?? '',
      'api-key': options.apiKey,
      'message-timestamp': vonageTime(now),
    });
    const answer = await post(options.inboundUrl, params);
    await writeFile(join(dir, `inbound-${params.messageId}.json`), JSON.stringify({ params, answer }, null, 2));
    return { status: 201, body: { params, answer } };
  }

  const server = createStandinServer([
    ['POST', '/sms/json', submit],
    ['GET', '/v2/reports/records', (req) => reportRecords(req, [...kept.values()], options)],
    ['POST', '/_standin/numbers', setOutcome],
    ['POST', '/_standin/inbound', inbound],
    ['POST', '/_standin/outage', setOutage],
    ['GET', '/_standin/messages', () => ({ status: 200, body: [...kept.values()].sort((a, b) => b.dateReceived.localeCompare(a.dateReceived)) })],
  ]);
  const port = await listen(server, options.port ?? 0);
  const settled = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    messages: () => [...kept.values()],
    settled,
    async stop() {
      await settled();
      await closeServer(server);
    },
  };
}
