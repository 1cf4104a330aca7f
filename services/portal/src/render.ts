/**
 * Page rendering of the portal: liquidjs templates under `views/` (HTML escaping on by default),
 * one layout (`layout.liquid`), words from the message catalogues (`{{ 'ns:key' | t }}`, with
 * values as keyword arguments: `{{ 'debts:balance' | t: amount: x }}`; i18n.ts), money and dates
 * through `Intl` in the page's language. Each page is `render(req, res, name, values)`; forms get
 * the session's CSRF token as `csrf`.
 */
import { fileURLToPath } from 'node:url';
import { Liquid, type Context } from 'liquidjs';
import type { Request, Response } from 'express';
import { LANGUAGES, isLanguage, languageOf, translate } from './i18n.js';

const VIEWS = fileURLToPath(new URL('../views', import.meta.url));

/** The template engine (outputEscape: escape, so every `{{ }}` is HTML-escaped; templates parsed once and kept). */
export const liquid = new Liquid({ root: VIEWS, extname: '.liquid', outputEscape: 'escape', strictFilters: true, cache: true });
/** An amount in minor units as `locale` writes it in `currency` (Intl), e.g. `£12.50`. */
export function money(minor: number, currency: string, locale = 'en-GB'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(Number(minor) / 10 ** fractionDigits(currency));
}
liquid.registerFilter('money', money);
/**
 * A day as `locale` writes it (Intl, UTC): `long` in sentences ("28 November 2026"), `medium` in
 * table cells ("28 Nov 2026"), so a table of three columns fits 320 px without breaking a word.
 */
liquid.registerFilter('day', (d: Date | string, locale = 'en-GB', style: 'long' | 'medium' = 'long') =>
  new Intl.DateTimeFormat(locale, { dateStyle: style, timeZone: 'UTC' }).format(new Date(d)),
);

liquid.registerFilter('t', function (this: { context: Context }, key: string, ...args: unknown[]) {
  const locale = this.context.getSync(['locale']);
  const values = Object.fromEntries(args.filter((a): a is [string, unknown] => Array.isArray(a) && a.length === 2));
  return translate(isLanguage(locale) ? locale : LANGUAGES[0], key, values);
});

/** Minor-unit digits of a currency (2 for GBP, 0 for JPY), from Intl. */
export function fractionDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** One field error of a form: the field's id and its message (the error summary links to `#id`). */
export interface FieldError {
  field: string;
  message: string;
}

/** Renders `views/<name>.liquid` inside the layout with `status`; the page's brand (brand.ts, `res.locals.brand`) unless `values` name one. */
export async function render(req: Request, res: Response, name: string, values: Record<string, unknown> = {}, status = 200): Promise<void> {
  const csrf = req.csrfToken ? req.csrfToken() : '';
  const locale = languageOf(req);
  const other = LANGUAGES.filter((l) => l !== locale);
  const html = await liquid.renderFile(name, {
    locale,
    languages: other,
    signedIn: Boolean(req.session?.customerId),
    csrf,
    ...(res.locals.brand as object | undefined),
    ...values,
  });
  res.status(status).type('html').send(html);
}
