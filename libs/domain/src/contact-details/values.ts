/**
 * The values of contact details (docs/api.md section 10), checked and normalised against their
 * type: telephone numbers are parsed and validated with libphonenumber-js (Google's metadata) and
 * stored in E.164, a national number being read in the region of the customer's
 * `preferred_locale` (GB when it names none); an address is an object whose missing parts are
 * stored as null and its country must be an assigned ISO 3166-1 code (countries.ts); an e-mail address is kept as given (its format is checked by the body schema,
 * and again here for updates, whose schema cannot know the stored type).
 */
import { parsePhoneNumberWithError, type CountryCode } from 'libphonenumber-js/max';
import { ApiError } from '@dms/errors';
import { validator } from '../kernel/validation.js';
import { isCountryCode } from './countries.js';
import { AddressInput, PHONE_TYPES, type Address, type ContactDetailType } from './schemas.js';
import { textSchema } from '../kernel/schemas.js';

/** Region used for national numbers when the customer's locale names none. */
export const DEFAULT_PHONE_REGION: CountryCode = 'GB';

/** The columns a value is stored in: `value` (text) or `address` (JSON), the other null. */
export interface StoredValue {
  value: string | null;
  address: Address | null;
}

/**
 * The region of a BCP 47 locale (`en-GB` → `GB`), else GB.
 * @param locale a customer's `preferred_locale`, or null
 */
export function phoneRegion(locale: string | null | undefined): CountryCode {
  const region = locale?.split('-')[1];
  return (region && /^[A-Z]{2}$/.test(region) ? region : DEFAULT_PHONE_REGION) as CountryCode;
}

const invalid = (param: string, message: string) =>
  new ApiError('validation_failed', `${param} ${message}`, { param, errors: [{ param, message: `${param} ${message}` }] });

/**
 * A telephone number in E.164 (`+447911123456`).
 * @param region where a national number (no `+`) is read
 * @throws ApiError 400 `validation_failed` naming `param` when it is not a valid number
 */
export function toE164(input: string, region: CountryCode, param = 'value'): string {
  try {
    const parsed = parsePhoneNumberWithError(input, region);
    if (parsed.isValid()) return parsed.number;
  } catch {
    // Unparseable: reported below like a number that parses but cannot exist.
  }
  throw invalid(param, `must be a valid telephone number (international +…, or national in ${region})`);
}

// Each schema wraps the value as `{value}`, so nested errors read `value.line_1`; held once, as
// Ajv caches compiled schemas by object and `validator` then compiles each only once.
const wrap = (schema: unknown) => ({ type: 'object', properties: { value: schema }, required: ['value'] });
const SCHEMAS = {
  address: wrap(AddressInput),
  text: wrap(textSchema(320)),
  email: wrap({ type: 'string', format: 'email', maxLength: 320 }),
};

/** Validates `value` with the schema of `kind`; errors name `param` (in place of `value`). */
function check<T>(kind: keyof typeof SCHEMAS, param: string, value: unknown): T {
  try {
    return validator<{ value: T }>(SCHEMAS[kind])({ value }).value;
  } catch (err) {
    if (!(err instanceof ApiError) || param === 'value') throw err;
    const rename = (s: string) => s.replace(/^value/, param);
    const errors = (err.errors ?? []).map((e) => ({ param: rename(e.param), message: rename(e.message) }));
    throw new ApiError('validation_failed', rename(err.message), { param: rename(err.param ?? 'value'), errors });
  }
}

/**
 * Checks `value` against `type` and gives the columns to store.
 * @param param the field's name in the request (`value`, `contact_details[2].value`)
 * @throws ApiError 400 `validation_failed` naming `param`
 */
export function storedValue(type: ContactDetailType, value: unknown, region: CountryCode, param = 'value'): StoredValue {
  if (type === 'address') {
    const a = check<AddressInput>('address', param, value);
    if (a.country != null && !isCountryCode(a.country)) throw invalid(`${param}.country`, 'must be an assigned ISO 3166-1 alpha-2 country code');
    return {
      value: null,
      address: {
        line_1: a.line_1,
        line_2: a.line_2 ?? null,
        city: a.city ?? null,
        county: a.county ?? null,
        postal_code: a.postal_code ?? null,
        country: a.country ?? null,
      },
    };
  }
  if (type === 'email') return { value: check<string>('email', param, value), address: null };
  const text = check<string>('text', param, value);
  return { value: (PHONE_TYPES as readonly string[]).includes(type) ? toE164(text, region, param) : text, address: null };
}
