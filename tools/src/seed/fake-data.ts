/**
 * Plausible demo data for `npm run seed` (faker, en_GB): creditor organisations, individual and
 * company customers with contact details, and debts with kind-appropriate amounts in minor units,
 * plus what happens to each debt afterwards (its lifecycle moves and payments).
 *
 * Pure generation: every function only draws from the faker instance it is given, so a seeded
 * faker reproduces the same data set. The inputs have the shape of the API's create bodies.
 */
import type { Faker } from '@faker-js/faker';
import type { OrganisationCreate as OrganisationInput } from '@dms/domain/organisations';
import type { CustomerCreate as CustomerInput } from '@dms/domain/customers';
import { DEBT_KINDS, type DebtCreate, type DebtMove } from '@dms/domain/debts';

type DebtKind = (typeof DEBT_KINDS)[number];

const SECTORS = ['Energy', 'Water', 'Telecom', 'Broadband', 'Finance', 'Credit', 'Housing', 'Motor Finance', 'Retail Credit', 'Council Services'];

/** An organisation create body: a creditor brand with its sector and region in metadata. */
export function fakeOrganisation(faker: Faker): OrganisationInput {
  const brand = faker.company.name().replace(/[,]/g, '');
  const sector = faker.helpers.arrayElement(SECTORS);
  return {
    name: `${brand} ${sector} Ltd`,
    customer_facing_name: `${brand.split(' ')[0]} ${sector}`,
    metadata: { sector: sector.toLowerCase().replace(/ /g, '_'), region: faker.location.county(), companies_house_number: faker.string.numeric(8) },
  };
}

/** A mailbox-safe email for a name (faker names may carry apostrophes and accents). */
function emailFor(faker: Faker, ...names: string[]): string {
  const local = names
    .map((n) =>
      n
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]/g, ''),
    )
    .filter(Boolean)
    .join('.');
  return `${local || 'customer'}${faker.number.int({ min: 1, max: 999 })}@${faker.internet.domainName()}`;
}

function postalAddress(faker: Faker) {
  return { line_1: faker.location.streetAddress(), city: faker.location.city(), postal_code: faker.location.zipCode(), country: 'GB' };
}

// Numbers in ranges libphonenumber-js accepts (UK mobile 07400 …, London 020 7946 0xxx, Ofcom's
// drama range), written internationally so any customer locale reads them the same.
const mobileNumber = (faker: Faker) => `+447400${faker.string.numeric(6)}`;
const landlineNumber = (faker: Faker) => `+442079460${faker.string.numeric(3)}`;

/** A customer create body: 85 % individuals (name, date of birth, email, mobile, address), 15 % companies. */
export function fakeCustomer(faker: Faker): CustomerInput {
  if (faker.number.float() < 0.15) {
    const name = `${faker.company.name().replace(/[,]/g, '')} ${faker.helpers.arrayElement(['Ltd', 'LLP', 'plc', 'Trading Ltd'])}`;
    return {
      kind: 'company',
      full_name: name,
      preferred_locale: 'en-GB',
      contact_details: [
        { type: 'email', value: emailFor(faker, 'accounts', name.split(' ')[0]!), primary: true, usage: 'billing' },
        { type: 'phone_number', value: landlineNumber(faker), primary: true, usage: 'work' },
        { type: 'address', value: postalAddress(faker), primary: true, usage: 'billing' },
      ],
      metadata: { crm_segment: faker.helpers.arrayElement(['sme', 'corporate', 'sole_trader']) },
    };
  }
  const sex = faker.helpers.arrayElement(['female', 'male'] as const);
  const first = faker.person.firstName(sex);
  const last = faker.person.lastName();
  const contacts: NonNullable<CustomerInput['contact_details']> = [
    { type: 'email', value: emailFor(faker, first, last), primary: true, usage: 'permanent' },
    { type: 'mobile_number', value: mobileNumber(faker), primary: true, usage: 'permanent' },
    { type: 'address', value: postalAddress(faker), primary: true, usage: 'permanent' },
  ];
  if (faker.number.float() < 0.2) contacts.push({ type: 'email', value: emailFor(faker, first, last), primary: false, usage: 'work' });
  return {
    kind: 'individual',
    first_name: first,
    last_name: last,
    date_of_birth: faker.date.birthdate({ mode: 'age', min: 18, max: 85 }).toISOString().slice(0, 10),
    preferred_locale: faker.helpers.weightedArrayElement([
      { weight: 90, value: 'en-GB' },
      { weight: 4, value: 'cy-GB' },
      { weight: 3, value: 'pl-PL' },
      { weight: 3, value: 'ro-RO' },
    ]),
    contact_details: contacts,
    metadata: { crm_segment: 'retail' },
  };
}

/** Principal range (minor units), interest share and account prefix of each debt kind. */
const KIND_PROFILE: Record<DebtKind, { principal: [number, number]; interest: [number, number]; prefix: string; weight: number }> = {
  consumer_loan: { principal: [100_000, 2_500_000], interest: [0.05, 0.25], prefix: 'LN', weight: 20 },
  credit_card: { principal: [20_000, 1_500_000], interest: [0.1, 0.35], prefix: 'CC', weight: 25 },
  overdraft: { principal: [5_000, 300_000], interest: [0.05, 0.2], prefix: 'OD', weight: 12 },
  utility_bill: { principal: [2_000, 60_000], interest: [0, 0], prefix: 'UT', weight: 18 },
  telecom_bill: { principal: [1_500, 40_000], interest: [0, 0], prefix: 'TL', weight: 12 },
  rent: { principal: [50_000, 400_000], interest: [0, 0.05], prefix: 'RT', weight: 8 },
  other: { principal: [1_000, 200_000], interest: [0, 0.1], prefix: 'OT', weight: 5 },
};

const TAGS = ['arrears', 'payment_plan', 'vulnerable', 'high_value', 'legacy_import', 'q3_batch', 'broken_promise', 'deceased_check', 'gone_away', 'priority'];

/** A debt create body for one of the given customers and organisations. */
export function fakeDebt(faker: Faker, customerIds: readonly string[], organisationIds: readonly string[]): DebtCreate {
  const kind = faker.helpers.weightedArrayElement(DEBT_KINDS.map((k) => ({ weight: KIND_PROFILE[k].weight, value: k })));
  const profile = KIND_PROFILE[kind];
  // Skewed towards the low end, as real balances are: most debts are small, a few are large.
  const span = profile.principal[1] - profile.principal[0];
  const principal = Math.round(profile.principal[0] + span * faker.number.float() ** 2.5);
  const interest = Math.round(principal * faker.number.float({ min: profile.interest[0], max: profile.interest[1] }));
  const fees = faker.helpers.weightedArrayElement([
    { weight: 60, value: 0 },
    { weight: 25, value: 1_200 },
    { weight: 15, value: 2_500 },
  ]);
  return {
    customer_id: faker.helpers.arrayElement(customerIds),
    organisation_id: faker.helpers.arrayElement(organisationIds),
    currency: faker.helpers.weightedArrayElement([
      { weight: 80, value: 'GBP' },
      { weight: 12, value: 'EUR' },
      { weight: 8, value: 'USD' },
    ]),
    breakdown: { principal, interest, fees },
    account_number: `${profile.prefix}-${faker.string.numeric(8)}`,
    kind,
    start_at: faker.date.past({ years: 4 }).toISOString(),
    tags: faker.helpers.arrayElements(TAGS, { min: 0, max: 3 }),
    metadata: { source_system: faker.helpers.arrayElement(['legacy_crm', 'sftp_upload', 'api']), batch: `B${faker.string.numeric(4)}` },
  };
}

/**
 * One step of what happens to a debt after creation: a lifecycle move, or a payment of `share` of
 * the remaining balance (1 pays it off), received at `at` with bank reference `ref`.
 */
export type DebtStep = { move: Exclude<DebtMove, 'pay' | 'delete'>; reason: string } | { pay: { share: number; at: string; ref: string } };

function payment(faker: Faker, share: number): DebtStep {
  return {
    pay: { share, at: faker.date.recent({ days: 90 }).toISOString(), ref: `FPS-${faker.string.alphanumeric({ length: 12, casing: 'upper' })}` },
  };
}

/**
 * The lifecycle a seeded debt goes through: most are made ready; some are then paused, disputed,
 * settled, withdrawn, partly paid or paid off, so lists and searches show a realistic status mix.
 */
export function fakeDebtHistory(faker: Faker): DebtStep[] {
  const ready: DebtStep = { move: 'ready', reason: 'Account data checked' };
  const pause: DebtStep = { move: 'pause', reason: 'Breathing space requested' };
  const part = () => payment(faker, faker.number.float({ min: 0.1, max: 0.6 }));
  return faker.helpers.weightedArrayElement<() => DebtStep[]>([
    { weight: 10, value: () => [] },
    { weight: 40, value: () => [ready] },
    { weight: 8, value: () => [ready, pause] },
    { weight: 5, value: () => [ready, pause, { move: 'resume', reason: 'Breathing space ended' }] },
    { weight: 5, value: () => [ready, { move: 'dispute', reason: 'Customer disputes the balance' }] },
    { weight: 5, value: () => [ready, { move: 'settle', reason: 'Settlement agreed' }] },
    { weight: 2, value: () => [{ move: 'withdraw', reason: 'Creditor recalled the account' }] },
    { weight: 15, value: () => [ready, part()] },
    { weight: 10, value: () => [ready, part(), payment(faker, 1)] },
  ])();
}
