/**
 * Each outbound communication is handed over on its own (docs/api.md section 13): it is marked
 * just before its hand-over and its outcome written right after, and a temporary refusal puts it
 * back to wait for its next attempt. New columns of `communications`:
 * - `sending_at`: set just before the hand-over, cleared when the provider refused for now; a
 *   `queued` communication with it set has an outcome the worker may have lost (reconciled);
 * - `next_attempt_at`: when a `queued` communication is next handed over (not sending), or next
 *   reconciled (sending, the provider said "ask later");
 * - `first_attempt_at`: the first hand-over, from which the retry window counts;
 * - `attempts`: hand-overs made.
 * Old rows: a `queued` communication with `handed_at` was handed over by the old code at its
 * batch's commit, so it gets `sending_at` = `handed_at` and is reconciled as before.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE communications
    ADD COLUMN sending_at timestamptz,
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN first_attempt_at timestamptz,
    ADD COLUMN attempts integer NOT NULL DEFAULT 0`);
  await knex.raw(
    `UPDATE communications SET sending_at = handed_at, first_attempt_at = handed_at, attempts = 1 WHERE status = 'queued' AND handed_at IS NOT NULL`,
  );
  await knex.raw('DROP INDEX IF EXISTS communications_unsettled');
  await knex.raw(`CREATE INDEX communications_unsettled ON communications (sending_at) WHERE status = 'queued' AND sending_at IS NOT NULL`);
  await knex.raw(`CREATE INDEX communications_to_hand_over ON communications (next_attempt_at) WHERE status = 'queued' AND sending_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS communications_to_hand_over');
  await knex.raw('DROP INDEX IF EXISTS communications_unsettled');
  await knex.raw(`CREATE INDEX communications_unsettled ON communications (handed_at) WHERE status = 'queued'`);
  await knex.raw('ALTER TABLE communications DROP COLUMN sending_at, DROP COLUMN next_attempt_at, DROP COLUMN first_attempt_at, DROP COLUMN attempts');
}
