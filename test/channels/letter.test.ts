/**
 * Letters (docs/api.md section 13): rendered as PDF with pdfkit, handed to the local print
 * provider that keeps them under a directory, read back and checked with a real PDF parser
 * (Mozilla's pdf.js): the document parses, holds the address block, the date, the subject and
 * the text, runs onto further pages with numbers, and prints characters it cannot encode as `?`.
 * A second hand-over of the same communication keeps the first document.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLetterProvider, createLocalPrintProvider, type LetterMessage, type LetterProvider } from '@dms/channels';
import { REPO_ROOT } from '@dms/tools/processes';

let dir: string;
let letters: LetterProvider;

/** The text of each page, lines joined by newlines (pdf.js text content). */
async function pagesOf(pdf: Buffer): Promise<string[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({
    data: new Uint8Array(pdf),
    isEvalSupported: false,
    // pdf.js's own metrics of the standard 14 fonts the letters use
    standardFontDataUrl: join(REPO_ROOT, 'node_modules', 'pdfjs-dist', 'standard_fonts') + '/',
  }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await doc.destroy();
  return pages;
}

const letter = (communicationId: string, over: Partial<LetterMessage> = {}): LetterMessage => ({
  communicationId,
  recipient: {
    name: 'Ann Example',
    address: { line_1: '1 High Street', line_2: 'Flat 2', city: 'Leeds', county: 'West Yorkshire', postal_code: 'ls1 1aa', country: 'GB' },
  },
  sender: { name: 'Example Energy', addressLines: ['PO Box 1', 'London', 'EC1A 1BB'] },
  date: new Date('2025-03-01T09:00:00Z'),
  subject: 'Your account ACC-1001',
  text: 'Dear Ann Example,\n\nYour balance of £100.00 (€5.00 fees) is due.\n\nYours sincerely,\nExample Energy',
  ...over,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dms-letters-'));
  letters = createLetterProvider({ printer: createLocalPrintProvider({ dir }) });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a letter', () => {
  test('is a PDF kept by the print provider, with address block, date, subject and text', async () => {
    const id = 'com_0000156789abcdefghijABCD';
    const result = await letters.send(letter(id));
    expect(result).toEqual({ provider: 'local-print', providerReference: `${id}.pdf`, details: { pages: 1, bytes: expect.any(Number) } });
    const pdf = await readFile(join(dir, `${id}.pdf`));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await letters.document(id)).toEqual(pdf);
    const [page] = await pagesOf(pdf);
    for (const line of [
      'Example Energy',
      'PO Box 1',
      'Ann Example',
      '1 High Street',
      'Flat 2',
      'Leeds',
      'West Yorkshire',
      'LS1 1AA',
      '1 March 2025',
      'Your account ACC-1001',
      'Your balance of £100.00 (€5.00 fees) is due.',
      'Yours sincerely,',
      'Page 1 of 1',
      id,
    ]) {
      expect(page).toContain(line);
    }
    expect(page).not.toContain('GB');
  });

  test('a long text runs onto numbered pages; characters outside Windows-1252 print as ?', async () => {
    const id = 'com_0000256789abcdefghijABCD';
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: the balance remains due and can be paid at any time.`).join('\n\n');
    const result = await letters.send(letter(id, { text: `Łódź office ✓\n\n${paragraphs}\n\nLast line.` }));
    const pages = await pagesOf((await letters.document(id))!);
    expect(result.details.pages).toBe(pages.length);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toContain('?ód? office ?');
    expect(pages.at(-1)).toContain('Last line.');
    expect(pages.at(-1)).toContain(`Page ${pages.length} of ${pages.length}`);
    expect(pages.join('')).toContain('Paragraph 60:');
  });
});

describe('once, not twice', () => {
  test('the same communication handed over again keeps the first document; reconcile finds it', async () => {
    const id = 'com_0000356789abcdefghijABCD';
    await letters.send(letter(id, { text: 'First version.' }));
    const second = await letters.send(letter(id, { text: 'Second version.' }));
    expect(second.providerReference).toBe(`${id}.pdf`);
    expect((await pagesOf((await letters.document(id))!))[0]).toContain('First version.');
    expect((await readdir(dir)).filter((f) => f.startsWith(id))).toEqual([`${id}.pdf`]);
    expect(await letters.reconcile({ communicationId: id, attemptedAt: new Date() })).toEqual({ outcome: 'sent', providerReference: `${id}.pdf`, details: {} });
    expect(await letters.reconcile({ communicationId: 'com_0000456789abcdefghijABCD', attemptedAt: new Date() })).toEqual({ outcome: 'not_found' });
  });
});
