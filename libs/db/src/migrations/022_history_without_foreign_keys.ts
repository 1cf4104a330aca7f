/**
 * The partitioned history tables (events, webhook deliveries, delivery attempts; docs/api.md
 * section 11) lose their foreign keys to `tenants` and `webhook_endpoints`.
 *
 * Why: creating or dropping a partition of a table with a foreign key also takes a lock on the
 * referenced table (its referential-integrity triggers change). Every write of the API holds a
 * lock on `tenants` (the foreign-key check of the row it inserts) while it goes on to insert its
 * event, so the retention job, holding the history tables and then asking for `tenants`, could
 * deadlock with it (seen in the retention bench). Without these keys the job locks only the three
 * history tables, in the order writers do. The rows they referred to are never deleted: tenants
 * are not deletable and endpoints are deleted softly (`deleted_at`), and every history row is
 * written by code that has just read or locked its tenant and endpoint.
 */
import type { Knex } from 'knex';

const HISTORY = ['events', 'webhook_deliveries', 'webhook_delivery_attempts'];

export async function up(knex: Knex): Promise<void> {
  // The constraints' names differ between databases created before and after partitioning:
  // drop whatever foreign keys the parents declare (their partitions' copies go with them).
  const { rows } = await knex.raw<{ rows: Array<{ table: string; name: string }> }>(
    `SELECT conrelid::regclass::text AS table, conname AS name FROM pg_constraint
      WHERE contype = 'f' AND conparentid = 0 AND conrelid = ANY (?::regclass[])`,
    [HISTORY],
  );
  for (const { table, name } of rows) await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [table, name]);
}

export async function down(knex: Knex): Promise<void> {
  // NOT VALID: the keys hold for new rows at once without a scan of the whole history.
  await knex.raw('ALTER TABLE events ADD CONSTRAINT events_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id) NOT VALID');
  await knex.raw('ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id) NOT VALID');
  await knex.raw(
    'ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) NOT VALID',
  );
}
