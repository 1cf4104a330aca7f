/**
 * A maintained list total (docs/api.md section 4, `X-Total-Count`) for tables added after
 * 001_core: an AFTER trigger bumps `list_counters` (sharded by 008_counter_shards) when a row
 * enters or leaves the list, and never for an update that keeps its membership (007's rule).
 * A table may feed several lists (a payment is in its debt's list and in the tenant's list).
 */
import type { Knex } from 'knex';

/** One counted list: its name in `list_counters`, the parent expression (`''` or `R.debt_id`), and membership (`R.` = the row). */
export interface CountedList {
  table: string;
  list: string;
  parent: string;
  visible: string;
}

/** Trigger name of a counted list. */
const triggerName = (c: CountedList) => `${c.table}_count_${c.list}`;

/**
 * Creates the trigger of `c` and seeds the counter with the rows already present.
 * @param watched columns whose update can change membership (`''`: only inserts and deletes)
 */
export async function createListCounter(knex: Knex, c: CountedList, watched = ''): Promise<void> {
  const v = (r: string) => c.visible.replaceAll('R.', `${r}.`);
  const p = (r: string) => c.parent.replaceAll('R.', `${r}.`);
  const name = triggerName(c);
  await knex.raw(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (${v('OLD')}) = (${v('NEW')}) AND ${p('OLD')} = ${p('NEW')} THEN
        RETURN NULL;
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') AND (${v('OLD')}) THEN
        PERFORM bump_list_counter(OLD.tenant_id, '${c.list}', ${p('OLD')}, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND (${v('NEW')}) THEN
        PERFORM bump_list_counter(NEW.tenant_id, '${c.list}', ${p('NEW')}, 1);
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ${name} AFTER INSERT OR DELETE OR UPDATE${watched ? ` OF ${watched}` : ''} ON ${c.table}
    FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  await knex.raw(`
    INSERT INTO list_counters (tenant_id, list, parent_id, shard, count)
    SELECT R.tenant_id, '${c.list}', ${c.parent}, 0, count(*) FROM ${c.table} R WHERE ${c.visible}
    GROUP BY 1, 3`);
}

/** Drops the trigger and the counts of `c`. */
export async function dropListCounter(knex: Knex, c: CountedList): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS ${triggerName(c)} ON ${c.table}`);
  await knex.raw(`DROP FUNCTION IF EXISTS ${triggerName(c)}()`);
  await knex.raw(`DELETE FROM list_counters WHERE list = ?`, [c.list]);
}
