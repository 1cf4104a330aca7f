/**
 * Mail that comes back (docs/api.md section 13), parsed with mailparser from the raw RFC 5322
 * message: a customer's reply to a debt's reply address, and a bounce, i.e. a delivery status
 * notification (RFC 3464, `multipart/report; report-type=delivery-status`, RFC 6522).
 *
 * The API's inbound-mail endpoint authenticates the request that carries the message; these
 * functions trust only what the message proves: a reply counts for a debt only when it was sent to
 * a reply address whose tag verifies, and a bounce is matched by the Message-ID it quotes or the
 * tagged bounce address it was sent to.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { communicationIdFromMessageId, parseTaggedAddress, type AddressKey } from './addresses.js';

/** A customer's reply, ready to become an inbound communication of `debtId`. */
export interface InboundEmail {
  debtId: string;
  /** Sender address (lowercase) and display name. */
  from: { address: string; name: string | null };
  subject: string;
  /** Plain text (mailparser converts an HTML-only message). */
  text: string;
  messageId: string | null;
  /** The communication replied to, when `In-Reply-To` or `References` quote one of our Message-IDs. */
  inReplyToCommunicationId: string | null;
}

/** A bounce of one recipient of one of our emails. */
export interface EmailBounce {
  /** The Message-ID of the bounced email, when the report quotes it. */
  originalMessageId: string | null;
  /** Its communication: from the quoted Message-ID, else from the tagged envelope recipient of the report. */
  communicationId: string | null;
  /** The failed recipient (`Final-Recipient`, lowercase). */
  recipient: string;
  /** `Action` (RFC 3464 section 2.3.3): only `failed` is a bounce; `delayed` is news. */
  action: string;
  /** `Status` (RFC 3463), e.g. `5.1.1`. */
  status: string;
  /** True for a `5.x.x` failure: the address is unusable (mark the contact detail `undeliverable`). */
  permanent: boolean;
  /** `Diagnostic-Code`, e.g. `smtp; 550 5.1.1 user unknown`. */
  diagnostic: string | null;
}

/** Options of both parsers: our reply domain and key, and what the SMTP envelope said if the caller knows it. */
export interface InboundOptions {
  addresses: AddressKey;
  /** The Message-ID domain of our emails (the `MAIL_FROM` domain unless configured otherwise). */
  messageIdDomain: string;
  /** Envelope recipients (RCPT TO) of the message, when the receiving system passes them on. */
  envelopeTo?: string[];
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  return (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address ?? '')).filter(Boolean);
}

function headerAddresses(mail: ParsedMail, names: string[]): string[] {
  return names.flatMap((n) => {
    const v = mail.headers.get(n);
    return typeof v === 'string' ? [v.replace(/^.*<([^>]+)>.*$/, '$1')] : [];
  });
}

function recipients(mail: ParsedMail, options: InboundOptions): string[] {
  return [...(options.envelopeTo ?? []), ...headerAddresses(mail, ['delivered-to', 'x-original-to']), ...addresses(mail.to), ...addresses(mail.cc)];
}

/**
 * Parses a reply sent to a debt's reply address.
 * @param raw the whole message (RFC 5322)
 * @returns the reply, or null when no recipient is a reply address of ours with a valid tag (not
 *   a reply to a debt: the caller answers it as unroutable)
 */
export async function parseInboundEmail(raw: Buffer | string, options: InboundOptions): Promise<InboundEmail | null> {
  const mail = await simpleParser(raw, { skipImageLinks: true });
  let debtId: string | null = null;
  for (const address of recipients(mail, options)) {
    const tagged = parseTaggedAddress(address, options.addresses);
    if (tagged?.purpose === 'reply') {
      debtId = tagged.id;
      break;
    }
  }
  if (!debtId) return null;
  const sender = mail.from?.value[0];
  const quoted = [mail.inReplyTo, ...(Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [])];
  const inReplyTo = quoted.map((id) => (id ? communicationIdFromMessageId(id, options.messageIdDomain) : null)).find(Boolean) ?? null;
  return {
    debtId,
    from: { address: (sender?.address ?? '').toLowerCase(), name: sender?.name || null },
    subject: mail.subject ?? '',
    text: (mail.text ?? '').trim(),
    messageId: mail.messageId ?? null,
    inReplyToCommunicationId: inReplyTo,
  };
}

/** Header blocks of a `message/delivery-status` body (RFC 3464 section 2.1): groups split by blank lines, folded lines unfolded, names lowercased. */
export function parseDeliveryStatus(body: string): Array<Record<string, string>> {
  const groups: Array<Record<string, string>> = [];
  for (const block of body.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const fields: Record<string, string> = {};
    for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
      const i = line.indexOf(':');
      if (i > 0) fields[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    if (Object.keys(fields).length > 0) groups.push(fields);
  }
  return groups;
}

/** Strips an address-type prefix such as `rfc822;` (RFC 3464 section 2.3.2). */
function typed(value: string | undefined): string {
  return (value ?? '').replace(/^[^;]*;\s*/, '').trim();
}

/**
 * Parses a bounce (a delivery status notification) into one entry per failed or delayed recipient.
 * @returns the entries (empty when the message is not a delivery status report)
 */
export async function parseBounce(raw: Buffer | string, options: InboundOptions): Promise<EmailBounce[]> {
  const mail = await simpleParser(raw, { keepDeliveryStatus: true, skipImageLinks: true });
  const status = mail.attachments.find((a) => a.contentType === 'message/delivery-status');
  if (!status) return [];
  const [, ...perRecipient] = parseDeliveryStatus(status.content.toString('utf8'));
  const original = mail.attachments.find((a) => a.contentType === 'text/rfc822-headers' || a.contentType === 'message/rfc822');
  const quotedId = original ? (/^message-id:\s*(<[^>]+>)/im.exec(original.content.toString('utf8').replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? null) : null;
  let communicationId = quotedId ? communicationIdFromMessageId(quotedId, options.messageIdDomain) : null;
  if (!communicationId) {
    for (const address of recipients(mail, options)) {
      const tagged = parseTaggedAddress(address, options.addresses);
      if (tagged?.purpose === 'bounce') {
        communicationId = tagged.id;
        break;
      }
    }
  }
  return perRecipient
    .filter((r): r is typeof r & { action: string } => Boolean(r['final-recipient'] && r.action))
    .map((r) => ({
      originalMessageId: quotedId,
      communicationId,
      recipient: typed(r['final-recipient']).toLowerCase(),
      action: r.action.toLowerCase(),
      status: r.status ?? '',
      permanent: r.action.toLowerCase() === 'failed' && /^5\./.test(r.status ?? ''),
      diagnostic: r['diagnostic-code'] ?? null,
    }));
}
