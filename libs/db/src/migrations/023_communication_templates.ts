/**
 * Communication templates (docs/api.md section 13): per tenant, one per name, for one delivery
 * method; every version of the text is kept (an edit of the text makes a new version, and a
 * communication keeps the version it used), so a template row holds the current version's number
 * and `communication_template_versions` every version's text, each an object of its own (`ctv_`).
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const LIST: CountedList = { table: 'communication_templates', list: 'communication_templates', parent: "''", visible: 'true' };
const VERSIONS: CountedList = { table: 'communication_template_versions', list: 'communication_template_versions', parent: 'R.template_id', visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('communication_templates', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('name').notNullable();
    t.text('delivery_method').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['tenant_id', 'name'], { indexName: 'communication_templates_name_unique' });
  });
  await knex.raw(`
    ALTER TABLE communication_templates
      ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
      ADD CONSTRAINT communication_templates_method CHECK (delivery_method IN ('email', 'sms', 'letter')),
      ADD CONSTRAINT communication_templates_version CHECK (version >= 1)`);
  await knex.raw('CREATE INDEX communication_templates_list ON communication_templates (tenant_id, seq)');
  await knex.schema.createTable('communication_template_versions', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('template_id').notNullable().references('communication_templates.id');
    t.integer('version').notNullable();
    t.text('subject');
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['template_id', 'version'], { indexName: 'communication_template_versions_unique' });
  });
  await knex.raw('ALTER TABLE communication_template_versions ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY');
  await createListCounter(knex, LIST);
  await createListCounter(knex, VERSIONS);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, VERSIONS);
  await dropListCounter(knex, LIST);
  await knex.schema.dropTable('communication_template_versions');
  await knex.schema.dropTable('communication_templates');
}
