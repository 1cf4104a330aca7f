/**
 * A tenant's `description` (docs/api.md section 10, `PATCH /tenants/me`): free text the tenant
 * keeps about its own account; null until set.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants ADD COLUMN description text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tenants DROP COLUMN description');
}
