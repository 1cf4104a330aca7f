/**
 * Webhook signature schemes (docs/api.md section 15): each endpoint signs its deliveries with
 * `standard` (Standard Webhooks, what every endpoint did before) or `hmac_sha256_hex` (the public
 * API's `Ophelos-Signature: t=…,v1=<hex>`). Existing endpoints keep `standard`.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_endpoints ADD COLUMN signature_scheme text NOT NULL DEFAULT 'standard'
      CONSTRAINT webhook_endpoints_signature_scheme_known CHECK (signature_scheme IN ('standard', 'hmac_sha256_hex'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN signature_scheme');
}
