/**
 * Letters (docs/api.md section 13): rendered as PDF (pdf.ts) and handed to a print provider, one
 * interface for whatever prints and posts them. The local print provider keeps each document as
 * `<dir>/<communication id>.pdf` (under `.data/letters` for `npm start`).
 *
 * Identity: a print job is named by its communication id, and handing the same id over twice
 * keeps the first document, so a retry after a crash never prints a letter twice; `reconcile`
 * asks the print provider whether it holds the job.
 */
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { renderLetterPdf, type LetterContent } from './pdf.js';
import { ChannelError, type ChannelProvider, type SendResult } from '../types.js';

/** Something that prints and posts PDF letters. */
export interface PrintProvider {
  readonly name: string;
  /**
   * Hands one letter over; the same `communicationId` twice keeps the first and returns its reference.
   * @throws ChannelError when the job was not taken
   */
  submit(job: { communicationId: string; pdf: Buffer }): Promise<{ providerReference: string }>;
  /** The job of `communicationId`, if the provider holds it. */
  lookup(communicationId: string): Promise<{ providerReference: string } | null>;
  /** The document of `communicationId` (for `GET /communications/{id}/document`), or null. */
  document(communicationId: string): Promise<Buffer | null>;
}

const SAFE_ID = /^[a-z]{2,5}_[0-9A-Za-z]{24}$/;

function fileOf(dir: string, communicationId: string): string {
  if (!SAFE_ID.test(communicationId)) throw new RangeError(`not a communication id: ${JSON.stringify(communicationId)}`);
  return join(dir, `${communicationId}.pdf`);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
}

/** The local print provider: keeps each letter as `<dir>/<communication id>.pdf` (written to a temporary name, then renamed, so a reader never sees half a document). */
export function createLocalPrintProvider({ dir }: { dir: string }): PrintProvider {
  return {
    name: 'local-print',
    async submit({ communicationId, pdf }) {
      const file = fileOf(dir, communicationId);
      const providerReference = `${communicationId}.pdf`;
      await mkdir(dir, { recursive: true });
      if (await exists(file)) return { providerReference };
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temp, pdf, { flag: 'wx' });
        await rename(temp, file);
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw new ChannelError('not_sent', 'print_store_failed', `letter not stored: ${(err as Error).message}`, { cause: err });
      }
      return { providerReference };
    },
    async lookup(communicationId) {
      return (await exists(fileOf(dir, communicationId))) ? { providerReference: `${communicationId}.pdf` } : null;
    },
    async document(communicationId) {
      return readFile(fileOf(dir, communicationId)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
    },
  };
}

/** One letter of one communication. */
export interface LetterMessage extends LetterContent {
  communicationId: string;
}

/** The letter channel: renders, hands over to `printer`, and serves the documents it holds. */
export interface LetterProvider extends ChannelProvider<LetterMessage> {
  /** The PDF of a letter sent through this provider, or null. */
  document(communicationId: string): Promise<Buffer | null>;
}

/** Creates the letter channel over a print provider (its `name` is the print provider's). */
export function createLetterProvider({ printer }: { printer: PrintProvider }): LetterProvider {
  return {
    name: printer.name,
    deliveryMethod: 'letter',
    async send(message): Promise<SendResult> {
      const { pdf, pages } = await renderLetterPdf({ ...message, reference: message.reference ?? message.communicationId });
      const { providerReference } = await printer.submit({ communicationId: message.communicationId, pdf });
      return { provider: printer.name, providerReference, details: { pages, bytes: pdf.length } };
    },
    async reconcile({ communicationId }) {
      const job = await printer.lookup(communicationId);
      return job ? { outcome: 'sent', providerReference: job.providerReference, details: {} } : { outcome: 'not_found' };
    },
    document: (communicationId) => printer.document(communicationId),
    async close() {},
  };
}
