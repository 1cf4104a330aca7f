/**
 * Core schema: tenants, OAuth clients, signing keys, organisations, customers, debts, payments,
 * and the maintained list counters behind `X-Total-Count` (docs/api.md section 4).
 *
 * Every listable table has `seq`, an identity column: keyset pagination orders by it (newest
 * first = highest seq), which also breaks ties between rows created in the same microsecond.
 */
import type { Knex } from 'knex';

const LISTABLE = ['organisations', 'customers', 'debts', 'payments'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('oauth_clients', (t) => {
    t.text('client_id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    // AES-256-GCM ciphertext (libs/secrets): oidc-provider compares the presented secret itself.
    t.text('secret_ciphertext').notNullable();
    t.text('scope').notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
  });

  await knex.schema.createTable('signing_keys', (t) => {
    t.text('kid').primary();
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('private_jwk_ciphertext').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Set when a newer key takes over signing; the key stays published until tokens it signed expire.
    t.timestamp('rotated_at', { useTz: true });
  });

  await knex.schema.createTable('organisations', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('customer_facing_name');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('customers', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('kind').notNullable();
    t.text('full_name');
    t.text('first_name');
    t.text('last_name');
    t.date('date_of_birth');
    t.text('preferred_locale');
    t.jsonb('contact_details').notNullable().defaultTo('[]');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('debts', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('customer_id').notNullable().references('customers.id');
    t.text('organisation_id').notNullable().references('organisations.id');
    t.text('account_number');
    t.text('kind');
    t.specificType('currency', 'char(3)').notNullable();
    t.timestamp('start_at', { useTz: true });
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('status').notNullable().defaultTo('initializing');
    t.text('status_reason');
    t.timestamp('status_updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Money in minor units (docs/api.md section 3); bigint so no currency can overflow.
    t.bigInteger('amount_principal').notNullable();
    t.bigInteger('amount_interest').notNullable().defaultTo(0);
    t.bigInteger('amount_fees').notNullable().defaultTo(0);
    t.bigInteger('amount_paid').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    ALTER TABLE debts
      ADD COLUMN amount_total bigint GENERATED ALWAYS AS (amount_principal + amount_interest + amount_fees) STORED,
      ADD COLUMN amount_remaining bigint GENERATED ALWAYS AS (amount_principal + amount_interest + amount_fees - amount_paid) STORED,
      ADD CONSTRAINT debts_amounts_nonnegative CHECK (amount_principal >= 0 AND amount_interest >= 0 AND amount_fees >= 0 AND amount_paid >= 0),
      ADD CONSTRAINT debts_not_overpaid CHECK (amount_paid <= amount_principal + amount_interest + amount_fees)`);

  await knex.schema.createTable('payments', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.timestamp('transaction_at', { useTz: true }).notNullable();
    t.text('transaction_ref');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  for (const table of LISTABLE) {
    await knex.raw(`ALTER TABLE ?? ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`, [table]);
  }

  // Keyset pagination indexes: (tenant, seq) for the visible rows of each list.
  await knex.raw(`CREATE INDEX organisations_list ON organisations (tenant_id, seq)`);
  await knex.raw(`CREATE INDEX customers_list ON customers (tenant_id, seq) WHERE deleted_at IS NULL`);
  await knex.raw(`CREATE INDEX debts_list ON debts (tenant_id, seq) WHERE status <> 'deleted'`);
  await knex.raw(`CREATE INDEX payments_list ON payments (debt_id, seq)`);
  await knex.raw(`CREATE INDEX debts_customer ON debts (customer_id)`);
  await knex.raw(`CREATE INDEX debts_organisation ON debts (organisation_id)`);

  // X-Total-Count comes from this table, kept exact by triggers in the writing transaction, so a
  // list's total is one primary-key read instead of count(*) over the tenant's rows.
  await knex.schema.createTable('list_counters', (t) => {
    t.text('tenant_id').notNullable();
    t.text('list').notNullable();
    // '' for top-level lists; the parent object's id for nested lists (a debt's payments).
    t.text('parent_id').notNullable().defaultTo('');
    t.bigInteger('count').notNullable().defaultTo(0);
    t.primary(['tenant_id', 'list', 'parent_id']);
  });
  await knex.raw(`
    CREATE FUNCTION bump_list_counter(p_tenant text, p_list text, p_parent text, p_delta bigint) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO list_counters (tenant_id, list, parent_id, count) VALUES (p_tenant, p_list, p_parent, p_delta)
      ON CONFLICT (tenant_id, list, parent_id) DO UPDATE SET count = list_counters.count + EXCLUDED.count
    $$`);
  // visible(row) decides membership of the list; the trigger adds or removes on each change of it.
  const counted: Array<{ table: string; visible: string; parent: string }> = [
    { table: 'organisations', visible: 'true', parent: `''` },
    { table: 'customers', visible: 'R.deleted_at IS NULL', parent: `''` },
    { table: 'debts', visible: `R.status <> 'deleted'`, parent: `''` },
    { table: 'payments', visible: 'true', parent: 'R.debt_id' },
  ];
  for (const { table, visible, parent } of counted) {
    const v = (r: string) => visible.replaceAll('R.', `${r}.`);
    const p = (r: string) => parent.replaceAll('R.', `${r}.`);
    await knex.raw(`
      CREATE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND (${v('OLD')}) THEN
          PERFORM bump_list_counter(OLD.tenant_id, '${table}', ${p('OLD')}, -1);
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND (${v('NEW')}) THEN
          PERFORM bump_list_counter(NEW.tenant_id, '${table}', ${p('NEW')}, 1);
        END IF;
        RETURN NULL;
      END $$`);
    // Only updates that can change membership fire the trigger, so ordinary updates stay cheap.
    const watched = table === 'customers' ? ' OF deleted_at' : table === 'debts' ? ' OF status' : '';
    await knex.raw(`
      CREATE TRIGGER ${table}_count AFTER INSERT OR DELETE OR UPDATE${watched} ON ${table}
      FOR EACH ROW EXECUTE FUNCTION ${table}_count()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['payments', 'debts', 'customers', 'organisations', 'list_counters', 'signing_keys', 'oauth_clients', 'tenants']) {
    await knex.schema.dropTableIfExists(t);
  }
  await knex.raw('DROP FUNCTION IF EXISTS bump_list_counter, organisations_count, customers_count, debts_count, payments_count');
}
