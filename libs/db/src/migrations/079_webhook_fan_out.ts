/**
 * The webhook fan-out rule from its one place (webhook-fan-out.ts): 004_webhooks created the
 * trigger, 020_webhook_operations redefined its function and 021_partitioned_history created the
 * trigger again on the partitioned `events`. The rule itself is unchanged: the function and its
 * trigger are replaced with the module's, so the rule in force is the one the module states (a
 * test compares them). No row is read or written.
 */
import type { Knex } from 'knex';
import { installWebhookFanOut } from './webhook-fan-out.js';

export async function up(knex: Knex): Promise<void> {
  await installWebhookFanOut(knex);
}

export async function down(): Promise<void> {
  // The rule before is the same rule (020's text): nothing to restore.
}
