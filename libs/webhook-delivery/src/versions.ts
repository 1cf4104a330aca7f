/**
 * The supported versions, in one place (docs/api.md sections 3 and 7): the API versions a request
 * may name in `Api-Version` (`YYYY-MM-DD`), and the webhook endpoint versions derived from them
 * (`v<YYYYMMDD>`), which pick the shape of the events delivered to an endpoint. The API validates
 * both against these lists and the dispatcher renders deliveries with them.
 */

/**
 * Supported API versions (`YYYY-MM-DD`), oldest first: `2025-04-01` is the public API's (its clients
 * send it in `Ophelos-Version`), `2026-11-01` ours; what differs is the table of version-changes.ts.
 */
export const API_VERSIONS = ['2025-04-01', '2026-11-01'] as const;
/** The API version used when a request names none. */
export const LATEST_API_VERSION = API_VERSIONS[API_VERSIONS.length - 1]!;

/** An endpoint version: `v` + an API version without its dashes. */
export type WebhookVersion = `v${string}`;

/** Endpoint version -> the API version (`YYYY-MM-DD`) whose event shape it receives. Oldest first. */
export const WEBHOOK_VERSIONS: Readonly<Record<WebhookVersion, string>> = Object.fromEntries(API_VERSIONS.map((v) => [`v${v.replaceAll('-', '')}`, v]));

/** Supported endpoint versions, oldest first. */
export const WEBHOOK_VERSION_NAMES = Object.keys(WEBHOOK_VERSIONS) as WebhookVersion[];

/** The version a new endpoint gets when `version` is omitted. */
export const LATEST_WEBHOOK_VERSION: WebhookVersion = WEBHOOK_VERSION_NAMES[WEBHOOK_VERSION_NAMES.length - 1]!;

/** True when `value` is a supported endpoint version. */
export function isWebhookVersion(value: string): value is WebhookVersion {
  return Object.hasOwn(WEBHOOK_VERSIONS, value);
}

/**
 * The API version (`YYYY-MM-DD`) whose event shape an endpoint stored with `version` receives.
 * A stored version that is no longer supported gets the newest shape rather than no delivery.
 */
export function eventApiVersion(version: string): string {
  return WEBHOOK_VERSIONS[isWebhookVersion(version) ? version : LATEST_WEBHOOK_VERSION]!;
}

/**
 * Explains why `value` is not an acceptable endpoint version, or returns null when it is.
 * Distinguishes a malformed label, an impossible date (`v20260231`) and an unsupported one.
 */
export function webhookVersionProblem(value: string): string | null {
  const m = /^v(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) return 'must be "v" followed by a date as YYYYMMDD';
  const [, y, mo, d] = m.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return 'is not a real date';
  if (!isWebhookVersion(value)) return `is not a supported version (supported: ${WEBHOOK_VERSION_NAMES.join(', ')})`;
  return null;
}
