/**
 * The OAuth 2.0 scopes of the resource API (docs/api.md section 2). The issuer grants from this list;
 * the API requires one of them per route.
 */

/** Every scope, in the order documentation lists them. */
export const SCOPES = [
  'debts:read',
  'debts:write',
  'customers:read',
  'customers:write',
  'organisations:read',
  'organisations:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
] as const;

export type Scope = (typeof SCOPES)[number];

const KNOWN = new Set<string>(SCOPES);

/** True when `value` is one of `SCOPES`. */
export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/**
 * Parses a space-separated scope string (RFC 6749 section 3.3) into a de-duplicated list.
 * @returns the scopes in first-seen order; unknown names are returned too, for the caller to reject
 */
export function parseScope(value: string | undefined | null): string[] {
  return [...new Set((value ?? '').split(' ').filter(Boolean))];
}
