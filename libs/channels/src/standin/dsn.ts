/**
 * A bounce as a real mail server writes it, for the local SMTP server to send back: a delivery
 * status notification (RFC 3464) in a `multipart/report; report-type=delivery-status` message
 * (RFC 6522) with a human-readable part, the `message/delivery-status` fields and the original
 * message's headers (`text/rfc822-headers`), built with nodemailer's MIME tree (MimeNode).
 */
import MimeNode from 'nodemailer/lib/mime-node';

export interface DsnInput {
  /** Where the bounce goes: the bounced message's envelope sender. */
  to: string;
  /** The recipient that failed. */
  recipient: string;
  /** The bounced message's header section (up to the first blank line). */
  originalHeaders: string;
  /** RFC 3463 status, e.g. `5.1.1` (default). */
  status?: string;
  /** `failed` (default) or `delayed`. */
  action?: 'failed' | 'delayed';
  /** The remote server's answer, e.g. `550 5.1.1 user unknown`. */
  diagnostic?: string;
  /** The reporting host (default `localhost`). */
  reportingMta?: string;
}

/** The bounce message (RFC 5322 text with CRLF line ends). */
export function composeDsn(input: DsnInput): Promise<Buffer> {
  const mta = input.reportingMta ?? 'localhost';
  const status = input.status ?? '5.1.1';
  const action = input.action ?? 'failed';
  const diagnostic = input.diagnostic ?? `550 ${status} <${input.recipient}>: Recipient address rejected: User unknown in local recipient table`;
  const root = new MimeNode('multipart/report; report-type=delivery-status', { hostname: mta, newline: 'win' });
  root.setHeader({
    From: `Mail Delivery System <MAILER-DAEMON@${mta}>`,
    To: input.to,
    Subject: action === 'failed' ? 'Undelivered Mail Returned to Sender' : 'Delayed Mail (still being retried)',
    Date: new Date(),
    'Auto-Submitted': 'auto-replied',
  });
  root
    .createChild('text/plain; charset=utf-8')
    .setContent(`This is the mail system at host ${mta}.\r\n\r\nYour message could not be delivered to <${input.recipient}>:\r\n${diagnostic}\r\n`);
  const fields = [
    `Reporting-MTA: dns; ${mta}`,
    `Arrival-Date: ${new Date().toUTCString()}`,
    '',
    `Final-Recipient: rfc822; ${input.recipient}`,
    `Original-Recipient: rfc822; ${input.recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Remote-MTA: dns; ${input.recipient.split('@')[1] ?? mta}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
  ];
  root.createChild('message/delivery-status').setContent(`${fields.join('\r\n')}\r\n`);
  root.createChild('text/rfc822-headers').setContent(input.originalHeaders.replace(/\r?\n/g, '\r\n'));
  return root.build();
}
