/**
 * The sample import files (docs/api.md section 16) that `npm run seed:files` writes to
 * `samples/imports/`, used by the README and the tests: a placement file of accounts with
 * realistic names and addresses (faker, en_GB) and one deliberately broken row, and transaction,
 * arrangement and closure files about those accounts (disjoint ranges, so each applies cleanly
 * after the placements). Pure and deterministic: the same seed gives the same bytes.
 */
import { Faker, en_GB, en, base } from '@faker-js/faker';
import { stringify } from 'csv-stringify/sync';

/** The seed the committed samples are generated with. */
export const SAMPLE_SEED = 20261125;
/** Accounts in the placement sample. */
export const SAMPLE_ACCOUNTS = 300;
/** The placement row (1-based data row) whose `balance_total` is deliberately broken (`12.345`). */
export const BROKEN_ROW = 42;

/** `ACC-000001` … */
export const accountNumber = (i: number) => `ACC-${String(i).padStart(6, '0')}`;

/** `pounds.pence` of an amount in minor units (exact: integer arithmetic). */
const pounds = (minor: number) => `${Math.trunc(minor / 100)}.${String(Math.abs(minor) % 100).padStart(2, '0')}`;

const csv = (rows: Array<Record<string, string>>) => stringify(rows, { header: true });

function fakerFor(seed: number): Faker {
  const faker = new Faker({ locale: [en_GB, en, base] });
  faker.seed(seed);
  // Dates relative to "now" (ages) are drawn from a fixed day, so the files do not change with the calendar.
  faker.setDefaultRefDate('2026-11-01T00:00:00Z');
  return faker;
}

/** A mailbox-safe email for a name. */
function email(faker: Faker, first: string, last: string): string {
  const local = `${first}.${last}`
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9.]/g, '');
  return `${local}${faker.number.int({ min: 1, max: 99 })}@${faker.internet.domainName()}`;
}

/** The placement sample: `count` accounts, row BROKEN_ROW with a three-decimal balance. */
export function placementCsv(seed = SAMPLE_SEED, count = SAMPLE_ACCOUNTS): string {
  const faker = fakerFor(seed);
  const rows = Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    const first = faker.person.firstName();
    const last = faker.person.lastName();
    const principal = faker.number.int({ min: 2_000, max: 250_000 });
    const interest = faker.number.int({ min: 0, max: 5_000 });
    const fees = faker.helpers.arrayElement([0, 0, 1_200, 2_500]);
    const company = faker.number.float() < 0.1 ? `${faker.company.name().replace(/,/g, '')} Ltd` : '';
    return {
      account_number: accountNumber(i),
      balance_total: i === BROKEN_ROW ? '12.345' : pounds(principal + interest + fees),
      first_name: first,
      last_name: last,
      dob: faker.date.birthdate({ mode: 'age', min: 18, max: 85 }).toISOString().slice(0, 10),
      email: faker.number.float() < 0.8 ? email(faker, first, last) : '',
      mobile: faker.number.float() < 0.7 ? `447400${faker.string.numeric(6)}` : '',
      phone: faker.number.float() < 0.3 ? `442079460${faker.string.numeric(3)}` : '',
      address1: faker.location.streetAddress(),
      address2: faker.number.float() < 0.3 ? faker.location.secondaryAddress() : '',
      city: faker.location.city(),
      county: faker.location.county(),
      postcode: faker.location.zipCode(),
      country: 'United Kingdom',
      company,
      balance_principal: pounds(principal),
      balance_interest: pounds(interest),
      balance_fees: pounds(fees),
      last_payment_date: faker.date.between({ from: '2024-01-01', to: '2026-06-30' }).toISOString().slice(0, 10),
      default_date: faker.date.between({ from: '2025-01-01', to: '2026-09-30' }).toISOString().slice(0, 10),
      tags: faker.helpers.arrayElement(['', '', 'vulnerable', 'priority services']),
      extra_branch: faker.location.city(),
    };
  });
  return csv(rows);
}

/** The transaction sample: payments, fees, interest and credits on accounts 1 to 100 (not the broken one). */
export function transactionCsv(seed = SAMPLE_SEED): string {
  const faker = fakerFor(seed + 1);
  const rows = [];
  for (let i = 1; i <= 100; i++) {
    if (i === BROKEN_ROW) continue;
    const type = faker.helpers.arrayElement(['Payment', 'Payment', 'Fee', 'Interest', 'Credit']);
    const amount = type === 'Payment' ? faker.number.int({ min: 100, max: 1_500 }) : faker.number.int({ min: 50, max: 900 });
    rows.push({
      account_number: accountNumber(i),
      transaction_at: faker.date.between({ from: '2026-10-01', to: '2026-11-20' }).toISOString().replace('Z', ''),
      amount: type === 'Payment' || type === 'Credit' ? `-${pounds(amount)}` : pounds(amount),
      transaction_type: type,
      transaction_ref: `TX-${faker.string.alphanumeric({ length: 10, casing: 'upper' })}`,
      notes: type === 'Payment' ? 'Paid by card to the creditor' : '',
    });
  }
  return csv(rows);
}

/** The arrangement sample: monthly, fortnightly and weekly plans on accounts 101 to 200, starting in 2031. */
export function arrangementCsv(seed = SAMPLE_SEED): string {
  const faker = fakerFor(seed + 2);
  const rows = [];
  for (let i = 101; i <= 200; i++) {
    rows.push({
      account_number: accountNumber(i),
      amount: pounds(faker.number.int({ min: 1_000, max: 5_000 })),
      frequency: faker.helpers.arrayElement(['Monthly', 'Biweekly', 'Weekly']),
      first_payment_date: faker.date.between({ from: '2031-01-01', to: '2031-03-31' }).toISOString().slice(0, 10),
      payment_method: faker.helpers.arrayElement(['Card', 'Direct Debit']),
      is_cancelled: 'False',
    });
  }
  return csv(rows);
}

/** The closure sample: every closure code on accounts 201 to 300 (HOLD until a date in 2031). */
export function closureCsv(seed = SAMPLE_SEED): string {
  const faker = fakerFor(seed + 3);
  const codes = ['RTC', 'DEC', 'BK', 'IVA', 'DRO', 'TD', 'PE', 'BS', 'DMP', 'LOI', 'ABU', 'SET', 'DISP', 'HOLD'];
  const rows = [];
  for (let i = 201; i <= 300; i++) {
    const reason = codes[(i - 201) % codes.length]!;
    rows.push({
      account_number: accountNumber(i),
      reason,
      note:
        reason === 'HOLD'
          ? faker.date.between({ from: '2031-01-01', to: '2031-12-31' }).toISOString().slice(0, 10)
          : faker.helpers.arrayElement(['', 'Client request']),
    });
  }
  return csv(rows);
}

/** Every sample by file name. */
export function sampleFiles(seed = SAMPLE_SEED): Record<string, string> {
  return {
    'placement.csv': placementCsv(seed),
    'transaction.csv': transactionCsv(seed),
    'arrangement.csv': arrangementCsv(seed),
    'closure.csv': closureCsv(seed),
  };
}
