/**
 * Object identifiers: a type prefix, an underscore and 24 random base62 characters
 * (docs/api.md section 3), e.g. `deb_4mG9c0Zk2QeX7bLr1TnW8yPa`.
 *
 * 24 base62 characters carry ~142 bits of entropy, so identifiers are unguessable and can be
 * generated without coordination between processes.
 */
import { randomFillSync } from 'node:crypto';

/**
 * A prefix: 2 to 4 lower-case letters naming the object type (`deb`, `pay`, `ctpl`). The domain
 * library declares one per resource (`resource.ts` of each folder) and lists them all in its
 * registry (`ID_PREFIXES`), so adding a resource changes nothing here.
 */
export type IdPrefix = string;

/** What a prefix must look like. */
export const PREFIX_PATTERN = /^[a-z]{2,4}$/;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 24;
// 62 * 4 = 248: bytes >= 248 are rejected so every character is uniformly distributed.
const REJECT_FROM = 248;

// CSPRNG bytes are drawn a pool at a time (one call per POOL_SIZE bytes, not one per id): a batch
// of imported rows makes thousands of ids, and a call into the CSPRNG costs far more than a byte.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

/** The next byte of the pool, refilled from the CSPRNG when used up. */
function randomByte(): number {
  if (poolAt === POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/**
 * Returns `n` uniformly random base62 characters from the CSPRNG.
 * @param n number of characters (>= 1)
 */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    const byte = randomByte();
    if (byte < REJECT_FROM) out += ALPHABET[byte % 62];
  }
  return out;
}

/**
 * Creates a new identifier.
 * @param prefix the object's prefix, e.g. `deb`
 * @returns `${prefix}_` followed by 24 base62 characters
 * @throws Error when `prefix` is not 2 to 4 lower-case letters (a programming error)
 */
export function newId(prefix: IdPrefix): string {
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`id prefix must be 2 to 4 lower-case letters: '${prefix}'`);
  return `${prefix}_${randomBase62(RANDOM_LENGTH)}`;
}

/** JSON Schema `pattern` for identifiers of `prefix`, for request validation. */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}_[0-9A-Za-z]{${RANDOM_LENGTH}}$`;
}
