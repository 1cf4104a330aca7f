/**
 * Country names as placement files write them (`United Kingdom`) to ISO 3166-1 alpha-2 codes, as
 * addresses store them: English region names from Intl (built once), the codes themselves, and the
 * names of the United Kingdom's parts; only codes the API accepts (contact-details/countries.ts),
 * so `ZZ` ("Unknown Region") or `EU` are refused as they are by `POST /customers`.
 */
import { isCountryCode } from '../../contact-details/countries.js';

let byName: Map<string, string> | undefined;

function names(): Map<string, string> {
  const map = new Map<string, string>([
    ['uk', 'GB'],
    ['england', 'GB'],
    ['scotland', 'GB'],
    ['wales', 'GB'],
    ['northern ireland', 'GB'],
    ['great britain', 'GB'],
  ]);
  const display = new Intl.DisplayNames(['en'], { type: 'region' });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      // Deprecated and reserved codes (DD, UK, YU) stand for their current one (DE, GB, RS).
      const code = Intl.getCanonicalLocales(`und-${String.fromCharCode(a, b)}`)[0]!.slice(4);
      const name = display.of(code);
      if (isCountryCode(code) && name && name !== code) map.set(name.toLowerCase(), code);
    }
  }
  return map;
}

/** `United Kingdom` → `GB`, `gb` → `GB`; undefined for a name it does not know. */
export function countryCode(text: string): string | undefined {
  const t = text.trim();
  byName ??= names();
  if (/^[A-Za-z]{2}$/.test(t)) {
    const code = Intl.getCanonicalLocales(`und-${t.toUpperCase()}`)[0]!.slice(4);
    return isCountryCode(code) ? code : undefined;
  }
  return byName.get(t.toLowerCase());
}
