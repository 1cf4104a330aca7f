/**
 * Email over SMTP with nodemailer (docs/api.md section 13): one pooled transport to `SMTP_URL`
 * (`smtp://` with STARTTLS when offered, `smtps://` for implicit TLS, credentials in the URL).
 *
 * Each email carries its communication's stable identity: `Message-ID: <com_...@domain>`, a
 * per-debt `Reply-To` and a per-communication envelope sender (addresses.ts), `From` from the
 * `MAIL_FROM` setting. The provider reference is the Message-ID: bounces and replies quote it.
 *
 * Failures are classified by what the SMTP conversation proves (RFC 5321 section 4.2: 4yz
 * transient, 5yz permanent):
 * - a server reply 4xx: `not_sent` (the server took responsibility for nothing; retry later);
 * - a reply 5xx: `rejected` (`recipient_rejected` when refused at RCPT TO: the address is unusable);
 * - no reply, before a session existed (refused connection, DNS, TLS, authentication) or refused by
 *   nodemailer itself: `not_sent` (`rejected` with `invalid_address` for an address it cannot use);
 * - no reply otherwise (connection lost or timed out mid-session): `unknown`, because the server may
 *   have accepted the message just before the link dropped (RFC 5321 section 6.1; RFC 1047),
 *   unless not a byte of the message's body was read for sending (the session broke during its
 *   greeting or envelope): then `not_sent`.
 *
 * Reconciliation: SMTP has no way to ask a server whether it accepted a message, so `reconcile`
 * always answers `unknown`; the engine marks such a communication `failed` with the reason and
 * never resends it (a bounce or a reply quoting its Message-ID can still arrive and is matched).
 */
import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import { bounceAddress, messageIdFor, replyAddress, type AddressKey } from './addresses.js';
import { ChannelError, type ChannelProvider, type SendResult } from '../types.js';

/** One email of one communication. */
export interface EmailMessage {
  communicationId: string;
  /** The debt the communication is about: its reply address goes in `Reply-To`. */
  debtId: string;
  /** Recipient address (the contact detail's value). */
  to: string;
  /** Recipient display name, if any. */
  toName?: string | null;
  subject: string;
  /** HTML body (already escaped by the template renderer). */
  html: string;
  /** Optional plain-text alternative. */
  text?: string | null;
}

export interface SmtpProviderOptions {
  /** `SMTP_URL`: `smtp://[user:pass@]host:port` or `smtps://...`. */
  url: string;
  /** `MAIL_FROM`: the `From` of every email, e.g. `Collections <collections@example.com>`. */
  from: string;
  /** Domain and key of reply and bounce addresses. */
  addresses: AddressKey;
  /** Right-hand side of Message-IDs (default: the domain of `from`). */
  messageIdDomain?: string;
  /** Connections kept open to the server (default 5). */
  maxConnections?: number;
  /** Seconds to wait for the server at each step (default 30). */
  timeoutSeconds?: number;
}

/** Errors raised before any SMTP session existed: nothing can have been accepted. */
const BEFORE_SESSION = new Set([
  'EDNS',
  'ETLS',
  'EREQUIRETLS',
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'ECONFIG',
  'EPROXY',
  'EMAXRECIPIENTS',
  'EFILEACCESS',
  'EURLACCESS',
]);
/** Socket errors of connecting: the connection never opened. */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/** nodemailer's error fields (docs of nodemailer's SMTP transport: `code`, `command`, `responseCode`, `response`). */
interface NodemailerError extends Error {
  code?: string;
  originalCode?: string;
  command?: string;
  responseCode?: number;
  response?: string;
}

/** Maps a nodemailer send error to a `ChannelError` by the rules in this module's comment. */
export function classifySmtpError(error: unknown): ChannelError {
  const err = error as NodemailerError;
  const detail = err.response ?? err.message;
  if (err.responseCode && err.responseCode >= 500) {
    return new ChannelError('rejected', err.command === 'RCPT TO' ? 'recipient_rejected' : `smtp_${err.responseCode}`, `SMTP server refused: ${detail}`, {
      cause: err,
    });
  }
  if (err.responseCode && err.responseCode >= 400) {
    return new ChannelError('not_sent', `smtp_${err.responseCode}`, `SMTP server deferred: ${detail}`, { cause: err });
  }
  const code = err.code ?? '';
  // nodemailer names the command `API` for what it refuses itself, before any server saw the message.
  if (err.command === 'API') {
    return code === 'EENVELOPE'
      ? new ChannelError('rejected', 'invalid_address', `not a usable address: ${err.message}`, { cause: err })
      : new ChannelError('not_sent', (code || 'smtp_error').toLowerCase(), `email not handed over: ${err.message}`, { cause: err });
  }
  if (BEFORE_SESSION.has(code) || CONNECT_FAILURES.has(err.originalCode ?? code) || /Greeting never received|Connection timeout/i.test(err.message)) {
    return new ChannelError('not_sent', (err.originalCode ?? code).toLowerCase() || 'connect_failed', `SMTP server not reached: ${err.message}`, {
      cause: err,
    });
  }
  return new ChannelError(
    'unknown',
    (code || 'smtp_error').toLowerCase(),
    `SMTP session ended without a reply (the server may have accepted the message): ${err.message}`,
    { cause: err },
  );
}

/** The domain part of an address or `Name <address>`. */
function domainOf(from: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(from);
  if (!m) throw new RangeError(`MAIL_FROM has no domain: ${JSON.stringify(from)}`);
  return m[1]!;
}

/**
 * Creates the SMTP email provider (`name: 'smtp'`).
 * @throws RangeError when `from` has no domain or `url` is not an smtp:/smtps: URL
 */
export function createSmtpEmailProvider(options: SmtpProviderOptions): ChannelProvider<EmailMessage> {
  const url = new URL(options.url);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new RangeError(`SMTP_URL must be smtp:// or smtps://, got ${url.protocol}`);
  const idDomain = options.messageIdDomain ?? domainOf(options.from);
  const timeout = (options.timeoutSeconds ?? 30) * 1000;
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: options.maxConnections ?? 5,
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // Message content is data: never let it make nodemailer read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  });

  return {
    name: 'smtp',
    deliveryMethod: 'email',
    async send(message): Promise<SendResult> {
      const messageId = messageIdFor(message.communicationId, idDomain);
      let info: { messageId?: string; response?: string; accepted?: unknown[]; rejected?: unknown[] };
      // The body is a stream nodemailer reads only when it writes the message's data: unread, no byte of the message left.
      let bodyRead = false;
      const html = new Readable({
        read() {
          bodyRead = true;
          this.push(message.html);
          this.push(null);
        },
      });
      try {
        info = await transport.sendMail({
          from: options.from,
          to: message.toName ? { name: message.toName, address: message.to } : message.to,
          subject: message.subject,
          html,
          ...(message.text ? { text: message.text } : {}),
          messageId,
          replyTo: replyAddress(message.debtId, options.addresses),
          envelope: { from: bounceAddress(message.communicationId, options.addresses), to: [message.to] },
        });
      } catch (err) {
        const failure = classifySmtpError(err);
        if (failure.outcome !== 'unknown' || bodyRead) throw failure;
        throw new ChannelError('not_sent', failure.code, `SMTP session ended before the message was sent: ${(err as Error).message}`, { cause: err });
      }
      if (info.rejected?.length) throw new ChannelError('rejected', 'recipient_rejected', `SMTP server refused the recipient: ${String(info.response)}`);
      return { provider: 'smtp', providerReference: messageId, details: { response: String(info.response ?? '') } };
    },
    async reconcile() {
      return {
        outcome: 'unknown',
        reason: 'smtp_cannot_be_asked: an interrupted SMTP session leaves no way to learn whether the server accepted the message; not resent',
      };
    },
    async close() {
      transport.close();
    },
  };
}
