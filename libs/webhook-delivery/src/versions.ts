/**
 * Webhook endpoint versions (docs/api.md sections 3 and 7): an endpoint's `version`
 * (`v<YYYYMMDD>`) picks the shape of the events delivered to it, the way `Api-Version` picks the
 * API's shape. This is the one list of supported endpoint versions: the API validates `version`
 * against it and the dispatcher renders deliveries with it.
 */

/** Endpoint version -> the API version (`YYYY-MM-DD`) whose event shape it receives. Oldest first. */
export const WEBHOOK_VERSIONS = {
  v20261101: '2026-11-01',
} as const;

export type WebhookVersion = keyof typeof WEBHOOK_VERSIONS;

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
  return WEBHOOK_VERSIONS[isWebhookVersion(version) ? version : LATEST_WEBHOOK_VERSION];
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
