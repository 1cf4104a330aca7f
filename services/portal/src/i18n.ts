/**
 * The portal's languages (docs/api.md section 18): i18next over the message catalogues in
 * `locales/<language>/<namespace>.json` (one namespace per journey: `common`, `link`, `debts`, …),
 * British English (`en-GB`, the fallback) and French (`fr-FR`). A page's language is, in order:
 * `?lang=` (remembered in the session), else the customer's own language once verified, else the
 * browser's `Accept-Language`, then `en-GB` (`languageOf`). Values are escaped by the views
 * (liquidjs `outputEscape`), not here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next, { type Resource } from 'i18next';
import type { Request } from 'express';

/** The languages the portal speaks, the first the fallback. */
export const LANGUAGES = ['en-GB', 'fr-FR'] as const;
export type Language = (typeof LANGUAGES)[number];

const LOCALES = fileURLToPath(new URL('../locales', import.meta.url));

/** Every catalogue under `locales/`, read once at start. */
function catalogues(): Resource {
  const resources: Resource = {};
  for (const lng of LANGUAGES) {
    resources[lng] = {};
    for (const file of readdirSync(join(LOCALES, lng)).filter((f) => f.endsWith('.json'))) {
      resources[lng][file.slice(0, -'.json'.length)] = JSON.parse(readFileSync(join(LOCALES, lng, file), 'utf8')) as Record<string, string>;
    }
  }
  return resources;
}

const resources = catalogues();

/** The i18next instance of the portal (initialised synchronously: the catalogues are in memory). */
export const i18n = i18next.createInstance();
void i18n.init({
  resources,
  lng: LANGUAGES[0],
  fallbackLng: LANGUAGES[0],
  supportedLngs: [...LANGUAGES],
  ns: Object.keys(resources[LANGUAGES[0]]!),
  defaultNS: 'common',
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

/** True when `value` is a language the portal speaks. */
export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The portal's language for a BCP 47 tag (`fr`, `fr-BE` → `fr-FR`; `en-US` → `en-GB`), or undefined. */
export function matchLanguage(tag: string | null | undefined): Language | undefined {
  const primary = tag?.split('-')[0]?.toLowerCase();
  return LANGUAGES.find((l) => l.split('-')[0] === primary);
}

/**
 * The language of this request: the session's (chosen with `?lang=`, or the customer's own
 * `contact_preferences.language` / `preferred_locale` set at verification), else `Accept-Language`,
 * else `en-GB`.
 */
export function languageOf(req: Request): Language {
  if (isLanguage(req.session?.lang)) return req.session.lang;
  const asked = req.acceptsLanguages([...LANGUAGES, 'en', 'fr']);
  return (asked && matchLanguage(asked)) || LANGUAGES[0];
}

/** `key` (`namespace:key`) in `lng`, with `values` interpolated (`{{name}}`). */
export function translate(lng: Language, key: string, values: Record<string, unknown> = {}): string {
  return i18n.t(key, { lng, ...values });
}
