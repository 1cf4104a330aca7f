/**
 * Invoices (docs/api.md section 8): a debt's invoices, `reference` unique within the debt (the
 * database enforces it, so two concurrent creates cannot both win), and the link from line items.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const LIST: CountedList = { table: 'invoices', list: 'invoices', parent: 'R.debt_id', visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoices', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.text('reference').notNullable();
    t.date('invoiced_on');
    t.date('due_on');
    t.text('description');
    t.text('status').notNullable().defaultTo('open');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['debt_id', 'reference'], { indexName: 'invoices_reference_unique' });
  });
  await knex.raw(`
    ALTER TABLE invoices
      ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
      ADD CONSTRAINT invoices_status CHECK (status IN ('open', 'paid', 'void'))`);
  await knex.raw('CREATE INDEX invoices_list ON invoices (debt_id, seq)');
  await knex.raw('ALTER TABLE line_items ADD CONSTRAINT line_items_invoice FOREIGN KEY (invoice_id) REFERENCES invoices (id)');
  await createListCounter(knex, LIST);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, LIST);
  await knex.raw('ALTER TABLE line_items DROP CONSTRAINT line_items_invoice');
  await knex.schema.dropTable('invoices');
}
