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

/** `object` with its tenant's `livemode`, when it is a plain object (what an event's `data.object` holds). */
export function withLivemode(object: unknown, livemode: boolean): unknown {
  return object !== null && typeof object === 'object' && !Array.isArray(object) ? { ...object, livemode } : object;
}
