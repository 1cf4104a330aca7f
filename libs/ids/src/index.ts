/**
 * Object identifiers: a type prefix, an underscore and 24 random base62 characters
 * (docs/api.md section 3), e.g. `deb_4mG9c0Zk2QeX7bLr1TnW8yPa`.
 *
 * 24 base62 characters carry ~142 bits of entropy, so identifiers are unguessable and can be
 * generated without coordination between processes.
 */
import { randomBytes } from 'node:crypto';

/** Every identifier prefix the platform issues, keyed by object type. */
export const ID_PREFIXES = {
  tenant: 'ten',
  organisation: 'org',
  customer: 'cus',
  contact_detail: 'cd',
  debt: 'deb',
  payment: 'pay',
  line_item: 'li',
  invoice: 'inv',
  payment_plan: 'pp',
  webhook_endpoint: 'wh',
  event: 'evt',
  delivery: 'del',
  request: 'req',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 24;
// 62 * 4 = 248: bytes >= 248 are rejected so every character is uniformly distributed.
const REJECT_FROM = 248;

/**
 * Returns `n` uniformly random base62 characters from the CSPRNG.
 * @param n number of characters (>= 1)
 */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of randomBytes(n + 8)) {
      if (byte < REJECT_FROM) out += ALPHABET[byte % 62];
      if (out.length === n) break;
    }
  }
  return out;
}

/**
 * Creates a new identifier.
 * @param prefix the object's prefix, e.g. `deb`
 * @returns `${prefix}_` followed by 24 base62 characters
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(RANDOM_LENGTH)}`;
}

/** JSON Schema `pattern` for identifiers of `prefix`, for request validation. */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[0-9A-Za-z]{${RANDOM_LENGTH}}$`;
}
