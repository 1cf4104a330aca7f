/**
 * `livemode` on every object the API shows (docs/api.md section 15), in one place: every object
 * schema with an `object` constant (a debt, a payment, an event, an expanded customer, …; not a
 * list or an error) gains the property. A request sees only its own tenant's objects, and a tenant
 * is live or test for its whole life, so every object of a response has the request's mode: the
 * serializer of each mode writes it as the property's default (no per-object work), and the
 * OpenAPI document lists it as a required boolean.
 */

import { ENVELOPES, stampLivemode } from '@dms/domain/kernel';

/** The stamping of answers written without a serializer (an older version's, relations of relations); it lives with the events' in the domain. */
export { stampLivemode };

type Json = Record<string, unknown>;

const DESCRIPTION = 'False for an object of test mode (a test client\u2019s), true for a live one.';

function isApiObject(schema: Json): boolean {
  const constant = ((schema.properties as Json | undefined)?.object as Json | undefined)?.const;
  return typeof constant === 'string' && !ENVELOPES.has(constant);
}

/**
 * A copy of `schema` in which every API object has `livemode`: with `default` set to `mode` for a
 * serializer, or documented and required for OpenAPI (`mode` = `documented`). The input is not
 * changed (schemas are shared between operations).
 */
export function withLivemodeProperty(schema: unknown, mode: boolean | 'documented'): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withLivemodeProperty(s, mode));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withLivemodeProperty(v, mode)]));
  if (!isApiObject(schema as Json)) return out;
  const property = mode === 'documented' ? { type: 'boolean', description: DESCRIPTION } : { type: 'boolean', default: mode };
  out.properties = { ...(out.properties as Json), livemode: property };
  if (mode === 'documented') {
    const required = (out.required as string[] | undefined) ?? [];
    if (!required.includes('livemode')) out.required = [...required, 'livemode'];
  }
  return out;
}
