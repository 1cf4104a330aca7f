/**
 * Who made a change and through what (docs/api.md section 9, "Payment plans"; sections 12 and 17):
 * a `whodunnit` is the tenant's client id (the tenant API), `operator:<client id>` (the operator
 * routes of the same API), `customer:<cus_id>` (the customer's portal) or `system` (the worker);
 * its `source` follows from it: `portal` for a customer, `worker` for `system`, else `api`.
 */

/** Where a change came from, as events show it beside its `whodunnit`. */
export const ACTOR_SOURCES = ['api', 'portal', 'worker'] as const;
export type ActorSource = (typeof ACTOR_SOURCES)[number];

/** The `source` of a `whodunnit` (pure). */
export function actorSource(whodunnit: string): ActorSource {
  if (whodunnit.startsWith('customer:')) return 'portal';
  return whodunnit === 'system' ? 'worker' : 'api';
}
