/**
 * Retention erasures (docs/api.md section 18, "Retention"): a customer whose last debt closed
 * `erase_after_days` ago by its tenant's clock is erased, once: claimed under `FOR UPDATE SKIP
 * LOCKED` (so several workers never erase one customer twice), erased by the domain's
 * `eraseCustomerIn` in the claim's transaction, which records `customer.erased`. No lag series:
 * its due time is computed per customer, too costly to scan for a gauge.
 */
import type { Knex } from '@dms/db';
import { RETENTION_REASON, dueForErasure, eraseCustomerIn } from '@dms/domain/personal-data';
import { tenantMoment, type Clock } from './clock.js';
import type { TimedChange } from './types.js';

const due = (trx: Knex.Transaction, clock: Clock, tenantIds: readonly string[]) =>
  dueForErasure(trx, { sql: tenantMoment('customers.tenant_id'), bindings: [clock.offsetSeconds] }, tenantIds);

/** The change that erases customers at the end of their retention period. */
export const retentionErasures: TimedChange = {
  name: 'customer_erased',
  async applyOne(trx, clock, tenantIds) {
    const [customer] = await due(trx, clock, tenantIds)
      .orderBy('customers.seq')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .select<{ id: string; tenant_id: string }[]>('customers.id', 'customers.tenant_id');
    if (!customer) return { kind: 'none' };
    await eraseCustomerIn(trx, customer.tenant_id, customer.id, RETENTION_REASON);
    return { kind: 'made', object: customer.id, tenant: customer.tenant_id, context: RETENTION_REASON };
  },
};
