/**
 * The OAuth 2.0 scopes of the resource API (docs/api.md section 2). The issuer grants from this
 * list; the API requires one of them per route. The list itself is built from the resources'
 * declarations (@dms/domain's registry), so a new resource's scopes appear here without an edit.
 */
import { OPERATOR_SCOPES, SCOPES, type OperatorScope, type Scope, type TenantScope } from '@dms/domain';

export { OPERATOR_SCOPES, SCOPES, type OperatorScope, type Scope, type TenantScope };

const TENANT = new Set<string>(SCOPES);
const OPERATOR = new Set<string>(OPERATOR_SCOPES);

/** True when `value` is one of `SCOPES` (a scope a tenant client may hold). */
export function isScope(value: string): value is TenantScope {
  return TENANT.has(value);
}

/** True when `value` is one of `OPERATOR_SCOPES` (docs/api.md section 12). */
export function isOperatorScope(value: string): value is OperatorScope {
  return OPERATOR.has(value);
}

/**
 * Whether `held` scopes allow an operation that requires `required` (docs/api.md sections 2 and
 * 12): holding it, or being an operator whose `operations:read` / `operations:write` covers every
 * tenant scope of the same access (`…:read` / `…:write`).
 */
export function allows(held: ReadonlySet<string>, required: Scope): boolean {
  if (held.has(required)) return true;
  if (isOperatorScope(required)) return false;
  return required.endsWith(':read') ? held.has('operations:read') || held.has('operations:write') : held.has('operations:write');
}

/**
 * Parses a space-separated scope string (RFC 6749 section 3.3) into a de-duplicated list.
 * @returns the scopes in first-seen order; unknown names are returned too, for the caller to reject
 */
export function parseScope(value: string | undefined | null): string[] {
  return [...new Set((value ?? '').split(' ').filter(Boolean))];
}
