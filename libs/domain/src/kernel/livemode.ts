/**
 * Live or test mode (docs/api.md section 15): a tenant is one or the other for its whole life, and
 * every object and event it owns carries its `livemode`. The answer is remembered per process once
 * read, as it never changes.
 */
import type { Knex } from '@dms/db';

const known = new Map<string, boolean>();

/**
 * True when `tenantId` is a live tenant, false for a test-mode one (an unknown tenant is live: it
 * owns nothing to show).
 */
export async function tenantLivemode(db: Knex | Knex.Transaction, tenantId: string): Promise<boolean> {
  const cached = known.get(tenantId);
  if (cached !== undefined) return cached;
  const row = await db<{ id: string; livemode: boolean }>('tenants').where({ id: tenantId }).first('livemode');
  const livemode = row?.livemode ?? true;
  if (row) known.set(tenantId, livemode);
  return livemode;
}

type Json = Record<string, unknown>;

/** `object` constants that are envelopes, not objects of a tenant: they carry no `livemode`. */
export const ENVELOPES = new Set(['list', 'error']);

/**
 * `value` (an answer, a list body or an event's object) with `livemode` = `mode` on every object in
 * it that has an `object` type, embedded and expanded ones included (a customer's contact details, a
 * payment's expanded debt). An object that already shows `livemode` (an event, its object) keeps its
 * own; `metadata` (the client's own keys, which may include `object`) is copied as it is; lists and
 * errors are envelopes and get none.
 */
export function stampLivemode(value: unknown, mode: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => stampLivemode(v, mode));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'metadata' ? v : stampLivemode(v, mode)]));
  if (typeof out.object === 'string' && !ENVELOPES.has(out.object) && !('livemode' in out)) out.livemode = mode;
  return out;
}

/**
 * `object` with its tenant's `livemode`, when it is a plain object (what an event's `data.object`
 * holds), and every object embedded in it stamped too (`stampLivemode`), so a stored event shows
 * the mode on each object as the API's answers do.
 */
export function withLivemode(object: unknown, livemode: boolean): unknown {
  return object !== null && typeof object === 'object' && !Array.isArray(object) ? { ...(stampLivemode(object, livemode) as Json), livemode } : object;
}
