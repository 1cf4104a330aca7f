/**
 * Page rendering of the portal: liquidjs templates under `views/` (HTML escaping on by default),
 * one layout (`layout.liquid`), money and dates through `Intl` in the page's locale. Each page is
 * `render(res, name, values)`; forms get the session's CSRF token as `csrf`.
 */
import { fileURLToPath } from 'node:url';
import { Liquid } from 'liquidjs';
import type { Request, Response } from 'express';

const VIEWS = fileURLToPath(new URL('../views', import.meta.url));

/** The template engine (outputEscape: escape, so every `{{ }}` is HTML-escaped). */
export const liquid = new Liquid({ root: VIEWS, extname: '.liquid', outputEscape: 'escape', strictFilters: true });
liquid.registerFilter('money', (minor: number, currency: string, locale = 'en-GB') =>
  new Intl.NumberFormat(locale, { style: 'currency', currency }).format(Number(minor) / 10 ** fractionDigits(currency)),
);
liquid.registerFilter('day', (d: Date | string, locale = 'en-GB') =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(d)),
);

/** Minor-unit digits of a currency (2 for GBP, 0 for JPY), from Intl. */
export function fractionDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** One field error of a form: the field's id and its message (the error summary links to `#id`). */
export interface FieldError {
  field: string;
  message: string;
}

/** Renders `views/<name>.liquid` inside the layout with `status`. */
export async function render(req: Request, res: Response, name: string, values: Record<string, unknown> = {}, status = 200): Promise<void> {
  const csrf = req.csrfToken ? req.csrfToken() : '';
  const html = await liquid.renderFile(name, { locale: 'en-GB', signedIn: Boolean(req.session?.customerId), csrf, ...values });
  res.status(status).type('html').send(html);
}
