/**
 * A letter as a PDF document, rendered with pdfkit (docs/api.md section 13): A4, the sender's
 * block at the top right, the customer's postal address block placed for a left-hand window
 * envelope (20 mm from the left, 50 mm from the top), the date, an optional subject line, then the
 * rendered letter text, flowing onto further pages as needed, each page numbered.
 *
 * The letter uses the PDF standard font Helvetica (no font files to ship), whose encoding is
 * Windows-1252: Western European letters and £ € are printed; any other character is printed as
 * `?` rather than as a wrong glyph.
 */
import PDFDocument from 'pdfkit';

/** A postal address as contact details of type `address` hold it (docs/api.md section 10). */
export interface PostalAddress {
  line_1: string;
  line_2?: string | null;
  city?: string | null;
  county?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

/** What a letter says and to whom. */
export interface LetterContent {
  recipient: { name: string | null; address: PostalAddress };
  /** The organisation writing (its customer-facing name) and its return address lines. */
  sender: { name: string; addressLines?: string[] };
  /** The letter's date (printed as e.g. `1 March 2025`, in UTC). */
  date: Date;
  /** A bold subject line, e.g. `Your account ACC-1001` (the template's rendered subject). */
  subject?: string | null;
  /** The rendered letter text: paragraphs separated by blank lines. */
  text: string;
  /** Printed small at the foot of each page, e.g. the communication id. */
  reference?: string | null;
}

const MM = 72 / 25.4;
const LEFT = 20 * MM;
const RIGHT_EDGE = 210 * MM - 20 * MM;

// Windows-1252 beyond Latin-1: the characters at 0x80-0x9F.
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ\u2018\u2019\u201C\u201D•–—˜™š›œžŸ');

/** `text` with line ends as LF, tabs as spaces, and every other character Helvetica's Windows-1252 encoding cannot print replaced by `?`. */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const c of text.normalize('NFC').replace(/\r\n?/g, '\n').replace(/\t/g, '    ')) {
    const code = c.codePointAt(0)!;
    out += c === '\n' || (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || CP1252_EXTRA.has(c) ? c : '?';
  }
  return out;
}

/** The address block's lines: name, street lines, town, county, postcode, and the country unless it is the UK. */
export function addressLines(name: string | null, address: PostalAddress): string[] {
  const country = address.country?.trim();
  const domestic = !country || /^(gb|gbr|uk|united kingdom)$/i.test(country);
  return [name, address.line_1, address.line_2, address.city, address.county, address.postal_code?.toUpperCase(), domestic ? null : country]
    .map((l) => (l ?? '').trim())
    .filter(Boolean);
}

/**
 * Renders a letter.
 * @returns the PDF document and its page count
 */
export function renderLetterPdf(letter: LetterContent): Promise<{ pdf: Buffer; pages: number }> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margins: { top: 20 * MM, bottom: 25 * MM, left: LEFT, right: 20 * MM },
      bufferPages: true,
      info: { Title: toWinAnsi(letter.subject ?? 'Letter'), Author: toWinAnsi(letter.sender.name), CreationDate: letter.date },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('error', reject);
    doc.on('end', () => resolve({ pdf: Buffer.concat(chunks), pages }));

    const width = RIGHT_EDGE - LEFT;
    doc
      .font('Helvetica-Bold')
      .fontSize(11)
      .text(toWinAnsi(letter.sender.name), LEFT, 20 * MM, { width, align: 'right' });
    doc.font('Helvetica').fontSize(9);
    for (const line of letter.sender.addressLines ?? []) doc.text(toWinAnsi(line), { width, align: 'right' });

    doc.fontSize(11).text(toWinAnsi(addressLines(letter.recipient.name, letter.recipient.address).join('\n')), LEFT, 50 * MM, { width: 85 * MM });

    const date = letter.date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    doc.text(date, LEFT, 95 * MM, { width, align: 'right' });
    doc.moveDown(2);
    if (letter.subject) doc.font('Helvetica-Bold').text(toWinAnsi(letter.subject), LEFT, undefined, { width }).moveDown();
    doc.font('Helvetica').text(toWinAnsi(letter.text), LEFT, undefined, { width, align: 'left', paragraphGap: 4, lineGap: 2 });

    const pages = doc.bufferedPageRange().count;
    for (let i = 0; i < pages; i++) {
      doc.switchToPage(i);
      const footer = [letter.reference ? toWinAnsi(letter.reference) : null, `Page ${i + 1} of ${pages}`].filter(Boolean).join('   ');
      // Writing inside the bottom margin must not start a new page.
      const bottom = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      doc
        .font('Helvetica')
        .fontSize(8)
        .text(footer, LEFT, doc.page.height - 15 * MM, { width, align: 'center', lineBreak: false });
      doc.page.margins.bottom = bottom;
    }
    doc.end();
  });
}
