/**
 * The trace context of the work that recorded an event (docs/api.md section 11, "Traces"):
 * `events.trace_parent`, a W3C `traceparent` (55 characters), null when that work was not traced
 * (every event recorded before this migration, and all of them when traces are off). The
 * dispatcher's delivery of the event continues that trace. Nullable without a default, so adding it
 * rewrites no partition.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE events ADD COLUMN trace_parent text CHECK (trace_parent IS NULL OR char_length(trace_parent) = 55)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events DROP COLUMN trace_parent');
}
