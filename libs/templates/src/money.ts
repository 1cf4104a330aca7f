/**
 * Money for customers to read: integer minor units (docs/api.md section 8) formatted with the
 * currency's symbol, e.g. 12500 GBP -> `£125.00`, 12500 EUR -> `€125.00`, 12500 USD -> `$125.00`.
 *
 * Formatting goes through `Intl.NumberFormat` with a decimal string built from the integer, so no
 * amount is ever rounded through a binary float (ECMA-402 accepts exact decimal strings).
 */

/** The currencies a debt can have (docs/api.md section 5), with the locale that writes each one's symbol as customers expect. */
export const CURRENCY_LOCALES = { GBP: 'en-GB', EUR: 'en-IE', USD: 'en-US' } as const;

/** ISO 4217 code of a supported currency. */
export type Currency = keyof typeof CURRENCY_LOCALES;

/** True when `code` is a supported ISO 4217 currency code. */
export function isCurrency(code: unknown): code is Currency {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(CURRENCY_LOCALES, code);
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: Currency, locale: string): Intl.NumberFormat {
  const key = `${currency}:${locale}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: 'currency', currency });
    formatters.set(key, f);
  }
  return f;
}

/**
 * Formats an amount in minor units, e.g. `formatMoney(12500, 'GBP')` -> `£125.00`,
 * `formatMoney(-5, 'USD')` -> `-$0.05`.
 * @param minor integer amount in minor units (a safe integer or a bigint)
 * @param currency ISO 4217 code (GBP, EUR or USD)
 * @param locale BCP 47 locale writing the number; defaults to the currency's own (`CURRENCY_LOCALES`)
 * @throws RangeError when `minor` is not an integer or `currency` is not supported
 */
export function formatMoney(minor: number | bigint, currency: string, locale?: string): string {
  if (!isCurrency(currency)) throw new RangeError(`unsupported currency ${JSON.stringify(currency)} (one of ${Object.keys(CURRENCY_LOCALES).join(', ')})`);
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) throw new RangeError(`amount must be an integer number of minor units, got ${minor}`);
  const f = formatter(currency, locale ?? CURRENCY_LOCALES[currency]);
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  const value = BigInt(minor);
  const sign = value < 0n ? '-' : '';
  const magnitude = (value < 0n ? -value : value).toString().padStart(digits + 1, '0');
  const decimal = digits === 0 ? magnitude : `${magnitude.slice(0, -digits)}.${magnitude.slice(-digits)}`;
  // A decimal string is exact; the lib typings only admit number | bigint.
  return f.format(`${sign}${decimal}` as unknown as number);
}
