/**
 * A placement row (docs/api.md section 16) read and checked without the database: exactly what
 * the API's calls would be given for a new account, through the same body schemas and value
 * checks: the customer with its contact details and address (`POST /customers`), the debt with
 * its line items from the `balance_*` columns or one of `balance_total` (`POST /debts`), then
 * `ready` (`prepared`). placements.ts writes a batch of them, with the same rows and events.
 */
import { ApiError } from '@dms/errors';
import { validator } from '../../kernel/validation.js';
import { CustomerCreate } from '../../customers/schemas.js';
import { DebtCreate } from '../../debts/schemas.js';
import { phoneRegion, storedValue, type StoredValue } from '../../contact-details/values.js';
import { extraMetadata } from '../files.js';
import { parseAmount, parseCount, parseDate } from '../values.js';
import { countryCode } from './countries.js';
import { optional, read, required, RowError, type Cells, type RowContext } from './context.js';

const customerBody = validator<CustomerCreate>(CustomerCreate);
const debtBody = validator<DebtCreate>(DebtCreate);

/** Where the domain's params point in a placement row. */
export const PLACEMENT_PARAMS: Readonly<Record<string, string>> = {
  date_of_birth: 'dob',
  first_name: 'first_name',
  last_name: 'last_name',
  full_name: 'company',
  account_number: 'account_number',
  line_items: 'balance_total',
  breakdown: 'balance_total',
  tags: 'tags',
};

/** Optional columns kept in the debt's metadata as given (after their check). */
const KEPT: ReadonlyArray<[string, (t: string) => unknown]> = [
  ['monthly_recurring_bills', (t) => parseAmount(t)],
  ['last_invoice_date', parseDate],
  ['last_payment_date', parseDate],
  ['agreement_date', parseDate],
  ['default_date', parseDate],
  ['placement_count', parseCount],
  ['notes', (t) => t],
];

type Details = NonNullable<CustomerCreate['contact_details']>;

/** The contact details of the row (email, mobile, phone, then the address) and the column each came from. */
function contactDetails(cells: Cells): { details: Details; columns: string[] } {
  const details: Details = [];
  const columns: string[] = [];
  const email = optional(cells, 'email');
  const add = (column: string, detail: Details[number]) => {
    details.push(detail);
    columns.push(column);
  };
  if (email) add('email', { type: 'email', value: email, primary: true });
  // The reference writes numbers internationally without the plus (447777888999).
  const mobile = optional(cells, 'mobile');
  if (mobile) add('mobile', { type: 'mobile_number', value: mobile.startsWith('44') ? `+${mobile}` : mobile, primary: true });
  const phone = optional(cells, 'phone');
  if (phone) add('phone', { type: 'phone_number', value: phone.startsWith('44') ? `+${phone}` : phone, primary: true });
  const country = countryCode(required(cells, 'country'));
  if (!country) throw new RowError('country', 'invalid_country', `country '${cells.country}' is not a country name or ISO 3166-1 code.`);
  const address = {
    line_1: required(cells, 'address1'),
    line_2: optional(cells, 'address2') ?? null,
    city: required(cells, 'city'),
    county: optional(cells, 'county') ?? null,
    postal_code: required(cells, 'postcode'),
    country,
  };
  add('address1', { type: 'address', value: address, primary: true });
  return { details, columns };
}

/** The line items: the `balance_*` parts when any is given (they must add up to `balance_total`), else `balance_total`. */
function breakdown(cells: Cells): { principal?: number; interest?: number; fees?: number } {
  const total = read('balance_total', parseAmount(required(cells, 'balance_total')));
  if (total === 0) throw new RowError('balance_total', 'invalid_amount', 'balance_total must be greater than 0.');
  const part = (column: string) => {
    const t = optional(cells, column);
    return t === undefined ? undefined : read(column, parseAmount(t));
  };
  const parts = { principal: part('balance_principal'), interest: part('balance_interest'), fees: part('balance_fees') };
  if (parts.principal === undefined && parts.interest === undefined && parts.fees === undefined) return { principal: total };
  const sum = (parts.principal ?? 0) + (parts.interest ?? 0) + (parts.fees ?? 0);
  if (sum !== total) {
    throw new RowError(
      'balance_total',
      'balance_mismatch',
      `balance_principal + balance_interest + balance_fees (${sum}) must equal balance_total (${total}), in minor units.`,
    );
  }
  return Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined));
}

/** The debt's metadata: the kept optional columns, then the `extra_*` columns. */
function debtMetadata(cells: Cells): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [column, parse] of KEPT) {
    const t = optional(cells, column);
    if (t !== undefined) {
      read(column, parse(t));
      metadata[column] = t;
    }
  }
  return { ...metadata, ...extraMetadata(cells) };
}

/** A placement row read and checked as the API's bodies would be: what `POST /customers` and `POST /debts` would be given. */
export interface Placement {
  accountNumber: string;
  /** The customer's body (`contact_details` as given, their values checked by `contactValues`). */
  customer: CustomerCreate;
  /** The column each of `customer.contact_details` came from. */
  columns: string[];
  /** The debt's body; its `customer_id` is a placeholder until the customer exists. */
  debt: DebtCreate;
}

/**
 * Reads a placement row (see the module comment) without touching the database: every check the
 * API's bodies make, in the order the calls make them, up to the account number's uniqueness.
 * @throws RowError for a cell, ApiError of the domain (mapped to a column by PLACEMENT_PARAMS)
 */
export function readPlacement(ctx: Pick<RowContext, 'organisationId' | 'currency'>, cells: Cells): Placement {
  const accountNumber = required(cells, 'account_number');
  const company = optional(cells, 'company');
  const contacts = contactDetails(cells);
  const customer = inColumns(contacts.columns, () =>
    customerBody({
      kind: company ? 'company' : 'individual',
      ...(company ? { full_name: company } : {}),
      first_name: required(cells, 'first_name'),
      last_name: required(cells, 'last_name'),
      date_of_birth: read('dob', parseDate(required(cells, 'dob'))),
      contact_details: contacts.details,
    }),
  );
  const tags = (optional(cells, 'tags') ?? '')
    .split(',')
    .map((t) => t.trim().replace(/\s+/g, '-'))
    .filter(Boolean);
  const debt = debtBody({
    customer_id: 'cus_000000000000000000000000',
    organisation_id: ctx.organisationId!,
    account_number: accountNumber,
    currency: ctx.currency,
    breakdown: breakdown(cells),
    tags,
    metadata: debtMetadata(cells),
  });
  return { accountNumber, customer, columns: contacts.columns, debt };
}

/** `contact_details[2].value.city` → `city` when detail 2 came from column `address1`, else the column itself. */
function columnParam(param: string, columns: readonly string[]): string {
  const m = /^contact_details\[(\d+)\](?:\.value)?(?:\.(\w+))?/.exec(param);
  const column = m ? columns[Number(m[1])] : undefined;
  if (!m || !column) return param;
  return column === 'address1' && m[2] ? (ADDRESS_COLUMNS[m[2]] ?? column) : column;
}

/** The columns of an address's parts. */
const ADDRESS_COLUMNS: Readonly<Record<string, string>> = {
  line_1: 'address1',
  line_2: 'address2',
  city: 'city',
  county: 'county',
  postal_code: 'postcode',
  country: 'country',
};

/**
 * Runs a check of the customer's body, naming in its errors the columns the contact details came
 * from (`contact_details[0].value` → `email`), as the file's writer knows them.
 * @throws RowError for a contact detail, the ApiError as it is for anything else
 */
function inColumns<T>(columns: readonly string[], check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof ApiError) || !err.param?.startsWith('contact_details[')) throw err;
    const column = columnParam(err.param, columns);
    const message = err.message.replace(err.param, column);
    throw new RowError(column, err.code, message);
  }
}

/**
 * The stored columns of the placement's contact details, checked as `POST /customers` checks them
 * (numbers to E.164 in the region of a customer without `preferred_locale`); a refused value names
 * the column it came from.
 * @throws RowError (a refused contact detail)
 */
export function contactValues(placement: Placement): StoredValue[] {
  return (placement.customer.contact_details ?? []).map((detail, i) => {
    return inColumns(placement.columns, () =>
      storedValue(detail.type, detail.value, phoneRegion(placement.customer.preferred_locale), `contact_details[${i}].value`),
    );
  });
}
