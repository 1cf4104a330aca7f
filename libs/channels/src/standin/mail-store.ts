/**
 * Where the local SMTP server keeps what it receives: each message as `<dir>/<id>.eml` (exactly the
 * bytes received) beside `<dir>/<id>.json` (envelope and main headers), ids sortable by arrival.
 * Messages from earlier runs are listed too.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';

/** One stored message's summary. */
export interface StoredMail {
  id: string;
  receivedAt: string;
  envelope: { from: string; to: string[] };
  messageId: string | null;
  inReplyTo: string | null;
  from: string;
  to: string;
  subject: string;
  /** `inbound` when sent to the reply domain (a reply or a bounce), else `outbound`. */
  direction: 'outbound' | 'inbound';
  /** Where an inbound message was forwarded and what that answered. */
  forwarded: { url: string; status: number | string } | null;
}

/** The store of one directory. */
export class MailStore {
  private readonly index = new Map<string, StoredMail>();
  /** Ids in arrival order (ids sort by arrival). */
  private readonly order: string[] = [];

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      try {
        const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as StoredMail;
        this.index.set(m.id, m);
        this.order.push(m.id);
      } catch {
        // a half-written summary of an interrupted run: its .eml is still there
      }
    }
    this.order.sort();
  }

  /** Parses and keeps one received message. */
  async save(raw: Buffer, envelope: StoredMail['envelope'], replyDomain: string): Promise<StoredMail> {
    const parsed = await simpleParser(raw, { skipHtmlToText: true, skipImageLinks: true });
    const id = `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
    const inbound = envelope.to.some((a) => a.toLowerCase().endsWith(`@${replyDomain.toLowerCase()}`));
    const mail: StoredMail = {
      id,
      receivedAt: new Date().toISOString(),
      envelope,
      messageId: parsed.messageId ?? null,
      inReplyTo: parsed.inReplyTo ?? null,
      from: parsed.from?.text ?? '',
      to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).map((a) => a.text).join(', '),
      subject: parsed.subject ?? '',
      direction: inbound ? 'inbound' : 'outbound',
      forwarded: null,
    };
    await writeFile(join(this.dir, `${id}.eml`), raw);
    this.order.push(id);
    await this.update(mail);
    return mail;
  }

  /** Rewrites a message's summary. */
  async update(mail: StoredMail): Promise<void> {
    this.index.set(mail.id, mail);
    await writeFile(join(this.dir, `${mail.id}.json`), JSON.stringify(mail, null, 2));
  }

  /** The newest `limit` messages (all when unset), newest first. */
  list(limit = Infinity): StoredMail[] {
    const ids = this.order.slice(Math.max(0, this.order.length - limit)).reverse();
    return ids.map((id) => this.index.get(id)!);
  }

  /** How many messages are kept. */
  get size(): number {
    return this.order.length;
  }

  get(id: string): StoredMail | null {
    return this.index.get(id) ?? null;
  }

  /** The message as received, or null. */
  async raw(id: string): Promise<Buffer | null> {
    if (!this.index.has(id)) return null;
    return readFile(join(this.dir, `${id}.eml`));
  }
}
