/**
 * An organisation's contact details can leave its set (docs/api.md section 15: `contact_details`
 * given on an organisation update is the whole set of its visible details, as a customer's is in
 * section 10). `organisation_contact_details.deleted_at` marks a detail taken out that way: it
 * leaves the organisation's list, retrieval and embedded `contact_details`; the row is kept for
 * the history its events tell.
 *
 * - A nullable column without a default: adding it rewrites nothing, and every existing detail
 *   stays visible (`deleted_at` null).
 * - The one-primary-per-type index is unchanged: a deleted detail is never primary.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE organisation_contact_details ADD COLUMN deleted_at timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE organisation_contact_details DROP COLUMN deleted_at`);
}
