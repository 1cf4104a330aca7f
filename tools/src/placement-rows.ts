/**
 * Placement files made up for the import tests and the imports benchmark (docs/api.md section 16):
 * one header, one row shape (a valid row for an account, any cell replaceable), the bench's
 * deterministic row `i`, and a file of `n` such rows written as a stream (never whole in memory).
 * Cells are plain (no commas or quotes), so a line is its cells joined by commas.
 */
import { createWriteStream } from 'node:fs';

/** The columns the made-up files have: the placement file's required ones, contacts, and two balance parts. */
export const PLACEMENT_HEADER = [
  'account_number',
  'balance_total',
  'first_name',
  'last_name',
  'dob',
  'email',
  'mobile',
  'address1',
  'city',
  'postcode',
  'country',
  'balance_principal',
  'balance_fees',
];

/** A CSV text from a header and rows of cells. */
export const csvOf = (header: readonly string[], rows: ReadonlyArray<readonly string[]>) => [header, ...rows].map((r) => r.join(',')).join('\n') + '\n';

/** The cells of a valid placement row for `account` (104.49 owed, one debt line item), with `over` replacing cells. */
export function placementRow(account: string, over: Partial<Record<string, string>> = {}): string[] {
  const base: Record<string, string> = {
    account_number: account,
    balance_total: '104.49',
    first_name: 'Morgan',
    last_name: 'Finley',
    dob: '1980-10-21',
    email: `${account.toLowerCase()}@example.com`,
    mobile: '447400123456',
    address1: 'Flat 312',
    city: 'London',
    postcode: 'E1 5JL',
    country: 'United Kingdom',
    ...over,
  };
  return PLACEMENT_HEADER.map((h) => base[h] ?? '');
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Mary', 'Tim', 'Sophie', 'Arjun', 'Chloe', 'Kwame', 'Niamh'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Somerville', 'Berners-Lee', 'Wilson', 'Patel', 'Evans', 'Mensah', 'Byrne'];

/** Minor units as the file writes them (`1234` → `12.34`). */
const money = (m: number) => `${Math.trunc(m / 100)}.${String(m % 100).padStart(2, '0')}`;

/** Row `i` (from 1) of the benchmark's file: account `BENCH-<i>`, varied names, amounts and contacts; a fee on every third. */
export function benchRow(i: number): string[] {
  const principal = 2_000 + ((i * 7919) % 200_000);
  const fees = i % 3 === 0 ? 1_200 : 0;
  const first = FIRST[i % 10]!;
  return placementRow(`BENCH-${i}`, {
    balance_total: money(principal + fees),
    first_name: first,
    last_name: LAST[Math.trunc(i / 10) % 10]!,
    dob: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}`,
    email: `${first.toLowerCase()}.${i}@example.com`,
    mobile: `447400${String(i % 1_000_000).padStart(6, '0')}`,
    address1: `${i} High Street`,
    city: 'Leeds',
    postcode: `LS1 ${1 + (i % 9)}AB`,
    balance_principal: money(principal),
    balance_fees: money(fees),
  });
}

/** Writes a file of the header and `benchRow(1..rows)` to `path`, streamed. */
export async function writeBenchFile(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (line: string) => (out.write(line) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write(`${PLACEMENT_HEADER.join(',')}\n`);
  for (let i = 1; i <= rows; i++) await write(`${benchRow(i).join(',')}\n`);
  await new Promise<void>((r) => out.end(() => r()));
}
