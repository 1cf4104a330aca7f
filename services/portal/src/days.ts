/**
 * Dates as the portal's journeys read and show them (docs/api.md section 18): `YYYY-MM-DD` days
 * (UTC calendar days, as the domain keeps them) shown long in the page's language through `Intl`,
 * and a typed date read back as `YYYY-MM-DD`.
 */

/** `YYYY-MM-DD` as a long date with its weekday in `locale` (`Tuesday, 1 December 2026`). */
export function longDay(day: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(day));
}

/** A `YYYY-MM-DD` (or `D/M/YYYY`, as typed in Britain and France) that is a real date, as `YYYY-MM-DD`; undefined otherwise. */
export function parseDay(given: string): string | undefined {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(given.trim());
  const uk = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(given.trim());
  const [y, m, d] = iso ? [iso[1], iso[2], iso[3]] : uk ? [uk[3], uk[2], uk[1]] : [];
  if (!y) return undefined;
  const day = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
  const parsed = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day ? day : undefined;
}
