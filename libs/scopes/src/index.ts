/**
 * The OAuth 2.0 scopes of the resource API (docs/api.md section 2). The issuer grants from this
 * list; the API requires one of them per route. The list itself is built from the resources'
 * declarations (@dms/domain's registry), so a new resource's scopes appear here without an edit.
 */
import { SCOPES, type Scope } from '@dms/domain';

export { SCOPES, type Scope };

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
