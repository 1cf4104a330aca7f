/**
 * File imports (docs/api.md section 16): an import per uploaded file (`imp_`), its rows as the
 * upload stored them (one JSON object of the file's cells per row, never the file whole), the
 * lanes its rows are split into (rows of one `account_number` share a lane, so they are applied
 * in file order while other lanes run on other workers), and the errors of its rows (`ierr_`).
 * A lane's `next_row` is the cursor of what is applied: it moves in the transaction of each row,
 * so a row is applied once and a killed worker's lane resumes after the last committed row.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const LIST: CountedList = { table: 'imports', list: 'imports', parent: "''", visible: 'true' };
const ERRORS: CountedList = { table: 'import_errors', list: 'import_errors', parent: 'R.import_id', visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('imports', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('type').notNullable();
    t.text('organisation_id');
    t.text('sha256').notNullable();
    t.text('filename');
    t.text('created_by');
    t.bigInteger('size_bytes').notNullable().defaultTo(0);
    t.text('status').notNullable();
    t.text('failure_code');
    t.text('failure_message');
    t.integer('rows_total').notNullable().defaultTo(0);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw(`
    ALTER TABLE imports
      ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
      ADD CONSTRAINT imports_type CHECK (type IN ('placement', 'transaction', 'arrangement', 'closure')),
      ADD CONSTRAINT imports_status CHECK (status IN ('receiving', 'queued', 'processing', 'completed', 'failed'))`);
  await knex.raw('CREATE INDEX imports_list ON imports (tenant_id, seq)');
  // The same file of the same type answers the existing import; a file refused whole may be sent again.
  await knex.raw(`CREATE UNIQUE INDEX imports_same_file ON imports (tenant_id, type, sha256) WHERE status NOT IN ('failed', 'receiving')`);
  await knex.raw(`CREATE INDEX imports_due ON imports (seq) WHERE status IN ('queued', 'processing')`);

  await knex.schema.createTable('import_lanes', (t) => {
    t.text('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    t.smallint('lane').notNullable();
    t.integer('next_row').notNullable().defaultTo(0);
    t.integer('rows_total').notNullable().defaultTo(0);
    t.integer('rows_processed').notNullable().defaultTo(0);
    t.integer('rows_succeeded').notNullable().defaultTo(0);
    t.integer('rows_failed').notNullable().defaultTo(0);
    t.timestamp('leased_until', { useTz: true });
    t.primary(['import_id', 'lane']);
  });

  await knex.schema.createTable('import_rows', (t) => {
    t.text('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    t.integer('row_number').notNullable();
    t.smallint('lane').notNullable();
    t.jsonb('cells').notNullable();
    t.primary(['import_id', 'row_number']);
  });
  await knex.raw('CREATE INDEX import_rows_lane ON import_rows (import_id, lane, row_number)');
  // A placement's account number seen earlier in its own file is a row error (docs/api.md section 16).
  await knex.raw(`CREATE INDEX import_rows_account ON import_rows (import_id, (cells->>'account_number'), row_number)`);

  await knex.schema.createTable('import_errors', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    t.integer('row_number').notNullable();
    t.text('column');
    t.text('code').notNullable();
    t.text('message').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE import_errors ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY');
  await knex.raw('CREATE INDEX import_errors_list ON import_errors (import_id, seq)');
  await knex.raw('CREATE INDEX import_errors_file_order ON import_errors (import_id, row_number, seq)');
  await createListCounter(knex, LIST);
  await createListCounter(knex, ERRORS);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, ERRORS);
  await dropListCounter(knex, LIST);
  await knex.schema.dropTable('import_errors');
  await knex.schema.dropTable('import_rows');
  await knex.schema.dropTable('import_lanes');
  await knex.schema.dropTable('imports');
}
