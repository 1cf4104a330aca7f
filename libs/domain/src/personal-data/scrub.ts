/**
 * Replacing copies of personal values inside stored text (docs/api.md section 20, "Erasure"):
 * pure functions over the values a customer was erased of. A value of at least
 * `SUBSTRING_MIN_LENGTH` characters is replaced wherever it occurs (a name inside a message); a
 * shorter one only where it is a whole string (a country code `GB` never touches `GBP`). JSON keys
 * are never touched.
 */
import { ERASED } from './registry.js';

/** Values this long or longer are replaced inside longer strings too. */
export const SUBSTRING_MIN_LENGTH = 4;

/** The values to erase, longest first (so a full name goes before the first name inside it), without empties. */
export function erasable(values: Iterable<string>): string[] {
  return [...new Set([...values].filter((v) => v.trim().length > 0))].sort((a, b) => b.length - a.length);
}

/** `text` with every copy of `values` (from `erasable`) replaced by the marker. */
export function scrubText(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) {
    if (out === v) return ERASED;
    if (v.length >= SUBSTRING_MIN_LENGTH && out.includes(v)) out = out.split(v).join(ERASED);
  }
  return out;
}

/** A JSON value with every string in it scrubbed (`scrubText`); objects and arrays are copied, keys kept. */
export function scrubJson(value: unknown, values: readonly string[]): unknown {
  if (typeof value === 'string') return scrubText(value, values);
  if (Array.isArray(value)) return value.map((v) => scrubJson(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubJson(v, values)]));
  return value;
}

/** Stored text that may be JSON (a stored response) or not (a message), scrubbed as what it is. */
export function scrubStored(text: string, values: readonly string[]): string {
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(scrubJson(JSON.parse(text), values));
    } catch {
      // not JSON after all: scrubbed as text below
    }
  }
  return scrubText(text, values);
}

/** The SQL LIKE patterns that find a row holding any of `values`, as text and as JSON-escaped text. */
export function likePatterns(values: readonly string[]): string[] {
  const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return [...new Set(values.flatMap((v) => [like(v), like(JSON.stringify(v).slice(1, -1))]))];
}

/** Every string inside a JSON value (the values a JSON column holds). */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
