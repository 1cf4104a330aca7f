/**
 * The contact details of an organisation (docs/api.md section 15, the public API's
 * `/organisations/{id}/contact_details`): `organisation_contact_details`, one row per detail, of the
 * types and value shapes of a customer's (migration 015: text in `value`, an address as JSON in
 * `address`). An organisation's details are how its customers reach it, not people to collect
 * from, so they carry no verification status and are never deleted.
 *
 * - Indexes: the list of an organisation's details `(organisation_id, seq)`; at most one primary per
 *   type (a partial unique index, the safety net behind the demotion done under the organisation's
 *   lock); `metadata['key']` search by a GIN `jsonb_path_ops` index (as migration 046 gives every
 *   table with metadata).
 * - Nothing existing changes: organisations had no contact details before.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE organisation_contact_details (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      organisation_id text NOT NULL REFERENCES organisations(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      type text NOT NULL,
      value text,
      address jsonb,
      "primary" boolean NOT NULL DEFAULT false,
      usage text,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((type = 'address') = (address IS NOT NULL AND value IS NULL))
    )`);
  await knex.raw(`CREATE INDEX organisation_contact_details_list ON organisation_contact_details (organisation_id, seq)`);
  await knex.raw(`CREATE UNIQUE INDEX organisation_contact_details_one_primary ON organisation_contact_details (organisation_id, type) WHERE "primary"`);
  await knex.raw(`CREATE INDEX organisation_contact_details_search_metadata ON organisation_contact_details USING gin (metadata jsonb_path_ops)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE organisation_contact_details');
}
