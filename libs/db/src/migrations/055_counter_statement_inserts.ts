/**
 * List counters bumped once per INSERT statement, not once per row, for the tables a placement
 * import writes (docs/api.md sections 4 and 16): customers, their contact details, debts, line
 * items and events.
 *
 * Their row triggers (001_core, 002_events, 010_line_items, 015_contact_details, 021) bump a
 * `list_counters` row per inserted row. A multi-row INSERT of one transaction (the worker writes a
 * batch of placements with one statement per table) then updates the same counter row once per
 * row: each update adds a version to a chain that the next one walks, so a batch of n events costs
 * O(n²) (BENCHMARKS.md, "Imports"). Inserts are now counted by an AFTER INSERT statement trigger
 * that reads the statement's new rows (a transition table) and bumps each (tenant, list, parent)
 * once by its count; the row triggers keep UPDATE and DELETE, whose rule (007's membership) is
 * unchanged. A one-row INSERT, as every API write makes, bumps exactly as before.
 */
import type { Knex } from 'knex';

/** A row trigger that counted inserts too: its table, trigger (and function) name, events kept, and its lists. */
interface Counted {
  table: string;
  trigger: string;
  /** What the row trigger keeps: its UPDATE and DELETE part. */
  rest: string;
  /** The events of the row trigger before this migration. */
  before: string;
  /** Each list: name, parent expression over `R`, membership over `R`. */
  lists: Array<{ list: string; parent: string; visible: string }>;
}

const COUNTED: Counted[] = [
  {
    table: 'customers',
    trigger: 'customers_count',
    rest: 'DELETE OR UPDATE OF deleted_at',
    before: 'INSERT OR DELETE OR UPDATE OF deleted_at',
    lists: [{ list: 'customers', parent: "''", visible: 'R.deleted_at IS NULL' }],
  },
  {
    table: 'customer_contact_details',
    trigger: 'customer_contact_details_count',
    rest: 'DELETE OR UPDATE OF status',
    before: 'INSERT OR DELETE OR UPDATE OF status',
    lists: [{ list: 'contact_details', parent: 'R.customer_id', visible: "R.status <> 'deleted'" }],
  },
  {
    table: 'debts',
    trigger: 'debts_count',
    rest: 'DELETE OR UPDATE OF status',
    before: 'INSERT OR DELETE OR UPDATE OF status',
    lists: [{ list: 'debts', parent: "''", visible: "R.status <> 'deleted'" }],
  },
  {
    table: 'line_items',
    trigger: 'line_items_count_line_items',
    rest: 'DELETE OR UPDATE',
    before: 'INSERT OR DELETE OR UPDATE',
    lists: [{ list: 'line_items', parent: 'R.debt_id', visible: 'true' }],
  },
  { table: 'events', trigger: 'events_count', rest: 'DELETE', before: 'INSERT OR DELETE', lists: [{ list: 'events', parent: "''", visible: 'true' }] },
];

const inserts = (c: Counted) => `${c.table}_count_inserts`;

export async function up(knex: Knex): Promise<void> {
  for (const c of COUNTED) {
    const bumps = c.lists.map(
      (l) => `
      INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
      SELECT R.tenant_id, '${l.list}', ${l.parent}, (pg_backend_pid() % 16)::smallint, count(*) FROM inserted R WHERE ${l.visible} GROUP BY 1, 3
      ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count;`,
    );
    await knex.raw(`CREATE FUNCTION ${inserts(c)}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${bumps.join('')} RETURN NULL; END $$`);
    // Dropping and creating in one transaction (the migration's): no insert is missed or counted twice.
    await knex.raw(`DROP TRIGGER ${c.trigger} ON ${c.table}`);
    await knex.raw(`CREATE TRIGGER ${c.trigger} AFTER ${c.rest} ON ${c.table} FOR EACH ROW EXECUTE FUNCTION ${c.trigger}()`);
    await knex.raw(
      `CREATE TRIGGER ${inserts(c)} AFTER INSERT ON ${c.table} REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ${inserts(c)}()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const c of COUNTED) {
    await knex.raw(`DROP TRIGGER ${inserts(c)} ON ${c.table}`);
    await knex.raw(`DROP FUNCTION ${inserts(c)}()`);
    await knex.raw(`DROP TRIGGER ${c.trigger} ON ${c.table}`);
    await knex.raw(`CREATE TRIGGER ${c.trigger} AFTER ${c.before} ON ${c.table} FOR EACH ROW EXECUTE FUNCTION ${c.trigger}()`);
  }
}
