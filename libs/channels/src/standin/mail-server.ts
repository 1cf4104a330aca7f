/**
 * The local SMTP server of `npm start` and the tests (docs/api.md section 13): accepts every
 * message over SMTP (smtp-server; no TLS, any or no credentials), keeps it under `<dataDir>/mail`
 * (mail-store.ts) and shows it on a small web page and as JSON. Mail to the reply domain (a reply,
 * a bounce) is inbound: it is kept too and, when an inbound URL is set, forwarded there as the raw
 * message (`POST`, `Content-Type: message/rfc822`, `Authorization: Bearer <secret>`,
 * `X-Envelope-From`, `X-Envelope-To`), the shape the API's inbound-mail endpoint receives.
 *
 * HTTP (all on 127.0.0.1):
 * - `GET /`: the newest 200 messages; `GET /messages/:id`: one, its HTML shown in a sandboxed frame.
 * - `GET /api/messages?limit=100` (newest first, at most 1000), `GET /api/messages/:id`,
 *   `GET /api/messages/:id/raw`: the same as JSON and RFC 5322.
 * - `POST /api/messages/:id/bounce` `{recipient?, status?, action?, diagnostic?}`: mails a bounce (DSN)
 *   of that message to its envelope sender, over SMTP from the null sender `<>` (RFC 5321 section 4.5.5).
 * - `POST /api/reply` `{to, from, subject?, text, inReplyTo?}`: mails a customer's reply over SMTP.
 * - `POST /api/reject` `{address, code?, message?}`: refuses that recipient at RCPT TO from now on.
 */
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { request } from 'undici';
import { join } from 'node:path';
import { composeDsn } from './dsn.js';
import { closeServer, createStandinServer, listen, type StandinRequest } from './http.js';
import { MailStore, type StoredMail } from './mail-store.js';
import { messagePage, listPage } from './mail-pages.js';

export interface LocalMailServerOptions {
  /** Messages go to `<dataDir>/mail`. */
  dataDir: string;
  /** SMTP port (default 0: any free port). */
  smtpPort?: number;
  /** Web page port (default 0: any free port). */
  httpPort?: number;
  /** Mail to this domain is inbound (`REPLY_DOMAIN`). */
  replyDomain: string;
  /** Where inbound mail is forwarded, with the bearer secret it carries. */
  inbound?: { url: string; secret: string };
}

export interface LocalMailServer {
  /** `smtp://127.0.0.1:<port>`: the `SMTP_URL` of the services. */
  smtpUrl: string;
  /** `http://127.0.0.1:<port>`: the web page and JSON listing. */
  webUrl: string;
  /** Every message kept, newest first. */
  messages(): StoredMail[];
  /** How many messages are kept (without listing them). */
  count(): number;
  stop(): Promise<void>;
}

/** Starts the local SMTP server and its web page. */
export async function startLocalMailServer(options: LocalMailServerOptions): Promise<LocalMailServer> {
  const store = new MailStore(join(options.dataDir, 'mail'));
  const rejected = new Map<string, { code: number; message: string }>();

  async function forward(mail: StoredMail, raw: Buffer): Promise<void> {
    if (!options.inbound) return;
    let status: number | string;
    try {
      const res = await request(options.inbound.url, {
        method: 'POST',
        headers: {
          'content-type': 'message/rfc822',
          authorization: `Bearer ${options.inbound.secret}`,
          'x-envelope-from': mail.envelope.from,
          'x-envelope-to': mail.envelope.to.join(','),
        },
        body: raw,
      });
      await res.body.dump();
      status = res.statusCode;
    } catch (err) {
      status = (err as Error).message;
    }
    await store.update({ ...mail, forwarded: { url: options.inbound.url, status } });
  }

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    banner: 'local SMTP server of the debt management service',
    logger: false,
    size: 25 * 1024 * 1024,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'local' });
    },
    onRcptTo(address, _session, callback) {
      const refusal = rejected.get(address.address.toLowerCase());
      if (!refusal) return callback();
      const err = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
        store
          .save(raw, envelope, options.replyDomain)
          .then((mail) => {
            callback(null, `OK: kept as ${mail.id}`);
            if (mail.direction === 'inbound') void forward(mail, raw);
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  const smtpPort = await new Promise<number>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort ?? 0, '127.0.0.1', () => resolve((smtp.server.address() as { port: number }).port));
  });
  const smtpUrl = `smtp://127.0.0.1:${smtpPort}`;
  const sender = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    disableFileAccess: true,
    disableUrlAccess: true,
  });

  async function bounce(req: StandinRequest) {
    const mail = store.get(req.params.id!);
    const raw = await store.raw(req.params.id!);
    if (!mail || !raw) return { status: 404, body: { error: 'no such message' } };
    if (!mail.envelope.from) return { status: 409, body: { error: 'the message has no envelope sender to bounce to' } };
    const body = req.body.length ? (JSON.parse(req.body.toString('utf8')) as Record<string, string>) : {};
    const text = raw.toString('utf8');
    const headerEnd = text.search(/\r?\n\r?\n/);
    const dsn = await composeDsn({
      to: mail.envelope.from,
      recipient: body.recipient ?? mail.envelope.to[0] ?? '',
      originalHeaders: headerEnd >= 0 ? text.slice(0, headerEnd) : text,
      status: body.status,
      action: body.action === 'delayed' ? 'delayed' : 'failed',
      diagnostic: body.diagnostic,
    });
    const info = await sender.sendMail({ envelope: { from: '', to: [mail.envelope.from] }, raw: dsn });
    return { status: 201, body: { response: info.response } };
  }

  async function reply(req: StandinRequest) {
    const b = JSON.parse(req.body.toString('utf8')) as { to?: string; from?: string; subject?: string; text?: string; inReplyTo?: string };
    if (!b.to || !b.from || !b.text) return { status: 400, body: { error: 'to, from and text are required' } };
    const info = await sender.sendMail({
      from: b.from,
      to: b.to,
      subject: b.subject ?? 'Re: your account',
      text: b.text,
      ...(b.inReplyTo ? { inReplyTo: b.inReplyTo, references: b.inReplyTo } : {}),
    });
    return { status: 201, body: { messageId: info.messageId, response: info.response } };
  }

  function reject(req: StandinRequest) {
    const b = JSON.parse(req.body.toString('utf8')) as { address?: string; code?: number; message?: string };
    if (!b.address) return { status: 400, body: { error: 'address is required' } };
    rejected.set(b.address.toLowerCase(), { code: b.code ?? 550, message: b.message ?? '5.1.1 Recipient address rejected: User unknown' });
    return { status: 204 };
  }

  const web = createStandinServer([
    ['GET', '/', () => ({ status: 200, contentType: 'text/html; charset=utf-8', body: listPage(store.list(200), store.size) })],
    [
      'GET',
      '/messages/:id',
      async (req) => {
        const raw = await store.raw(req.params.id!);
        return raw
          ? { status: 200, contentType: 'text/html; charset=utf-8', body: await messagePage(store.get(req.params.id!)!, raw) }
          : { status: 404, body: { error: 'no such message' } };
      },
    ],
    ['GET', '/api/messages', (req) => ({ status: 200, body: store.list(Math.min(Number(req.url.searchParams.get('limit') ?? 100) || 100, 1000)) })],
    [
      'GET',
      '/api/messages/:id',
      (req) => {
        const mail = store.get(req.params.id!);
        return mail ? { status: 200, body: mail } : { status: 404, body: { error: 'no such message' } };
      },
    ],
    [
      'GET',
      '/api/messages/:id/raw',
      async (req) => {
        const raw = await store.raw(req.params.id!);
        return raw ? { status: 200, contentType: 'message/rfc822', body: raw } : { status: 404, body: { error: 'no such message' } };
      },
    ],
    ['POST', '/api/messages/:id/bounce', bounce],
    ['POST', '/api/reply', reply],
    ['POST', '/api/reject', reject],
  ]);
  const httpPort = await listen(web, options.httpPort ?? 0);

  return {
    smtpUrl,
    webUrl: `http://127.0.0.1:${httpPort}`,
    messages: () => store.list(),
    count: () => store.size,
    async stop() {
      sender.close();
      await Promise.all([closeServer(web), new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}
