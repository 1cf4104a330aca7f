/**
 * envalid validators whose errors say what to set, shared by every service and by `npm start`
 * (tools/src/start.ts), so a bad value is refused with the same one line wherever it is read:
 * `config error: NAME: <what is wrong and what to set>`.
 */
import envalid from 'envalid';

const { makeValidator } = envalid;

/**
 * A TCP port, 1 to 65535 (envalid's `port` rules, with an error naming the fix).
 * @throws (to envalid) `must be a port number from 1 to 65535 …` for anything else
 */
export const port = makeValidator<number>((input) => {
  const n = Number(input);
  if (!(String(n) === String(input).trim() && Number.isInteger(n) && n >= 1 && n <= 65535)) {
    throw new Error(`"${input}" is not a port: set a whole number from 1 to 65535 that nothing else listens on`);
  }
  return n;
});

/**
 * A whole number of at least 1 (a pool size, a count of processes).
 * @throws (to envalid) `… set a whole number of at least 1` for 0, negatives, fractions and text
 */
export const atLeastOne = makeValidator<number>((input) => {
  const n = Number(input);
  if (!(String(input).trim() !== '' && Number.isSafeInteger(n) && n >= 1)) {
    throw new Error(`"${input}" is not allowed: set a whole number of at least 1`);
  }
  return n;
});

/**
 * A PostgreSQL connection string, `postgres://user:password@host:port/database` (or
 * `postgresql://`), as node-postgres reads it. Its value never appears in the error (it may hold a
 * password; see `SENSITIVE_SETTING`).
 * @throws (to envalid) `is not a PostgreSQL connection string …` for anything else
 */
export const postgresUrl = makeValidator<string>((input) => {
  let parsed: URL | undefined;
  try {
    parsed = new URL(input);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol) || !parsed.hostname) {
    throw new Error(
      'is not a PostgreSQL connection string: set it to postgres://user:password@host:5432/database (percent-encode special characters of the password), or unset it to use the embedded database',
    );
  }
  return input;
});
