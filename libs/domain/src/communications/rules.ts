/**
 * The contact rules of docs/api.md section 12 that are pure arithmetic (the collection engine
 * applies them with the tenant's clock): the customer's time zone from `preferred_locale`, the
 * 08:00-21:00 window in it, and when a customer over the 7-day limit may next be contacted.
 */

/** Earliest local hour a communication may go out (inclusive). */
export const CONTACT_FROM_HOUR = 8;
/** Local hour from which no communication goes out. */
export const CONTACT_UNTIL_HOUR = 21;
/** The customer's time zone (one rule for the contact window and for dates the client sends: customers/zone.ts). */
export { customerTimeZone as timeZoneOf } from '../customers/zone.js';

/** One formatter per time zone (making one costs more than formatting with it; there are a few hundred zones). */
const formats = new Map<string, Intl.DateTimeFormat>();

/** Local hour and minute of `at` in `timeZone`. */
export function localTime(at: Date, timeZone: string): { hour: number; minute: number; date: string } {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timeZone, format);
  }
  const parts = format.formatToParts(at).reduce<Record<string, string>>((acc, p) => ({ ...acc, [p.type]: p.value }), {});
  return { hour: Number(parts.hour), minute: Number(parts.minute), date: `${parts.year}-${parts.month}-${parts.day}` };
}

/**
 * When a communication may go out, given the window of section 12: `at` itself inside
 * 08:00-21:00 local time (or inside the customer's preferred `hours`, minutes of the local day
 * `[from, until)` within that window), else the next start of it, local (to the minute).
 */
export function nextContactTime(at: Date, timeZone: string, hours?: { from: number; until: number }): Date {
  const from = Math.max(hours?.from ?? 0, CONTACT_FROM_HOUR * 60);
  const until = Math.min(hours?.until ?? 24 * 60, CONTACT_UNTIL_HOUR * 60);
  const { hour, minute } = localTime(at, timeZone);
  const local = hour * 60 + minute;
  if (local >= from && local < until) return at;
  const wait = (local < from ? from - local : 24 * 60 - local + from) * 60 * 1000;
  return new Date(Math.floor((at.getTime() + wait) / 60_000) * 60_000);
}

/**
 * When a customer who received `count` communications in the last 7 days, the oldest at
 * `oldest`, may next be contacted under a limit of `limit` per 7 days: `now` when under it.
 */
export function nextAllowedByLimit(now: Date, count: number, oldest: Date | null, limit: number): Date {
  if (count < limit || !oldest) return now;
  return new Date(oldest.getTime() + 7 * 86_400_000 + 1000);
}
