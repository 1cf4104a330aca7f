/**
 * List counters change only when list membership changes.
 *
 * 001_core's counter triggers bumped -1 and +1 on every update that kept a row in its list (a debt
 * moving from `prepared` to `paid`, any organisation or payment update). Those no-op bumps still
 * lock the tenant's counter row until commit, which serialised unrelated writes and deadlocked
 * concurrent requests of one tenant: a payment that pays a debt off writes `payment.created`
 * (locking the events counter) and then updates the debt's status (locking the debts counter),
 * while a concurrent `POST /debts` locks them the other way round. With this migration an update
 * touches a counter only when the row enters or leaves its list (or moves to another parent), so
 * writes lock counters in one order: the object's own list first, then the events list.
 */
import type { Knex } from 'knex';

/** The counted tables: what makes a row a member of its list, and the list's parent (''). */
const COUNTED: Array<{ table: string; visible: string; parent: string }> = [
  { table: 'organisations', visible: 'true', parent: `''` },
  { table: 'customers', visible: 'R.deleted_at IS NULL', parent: `''` },
  { table: 'debts', visible: `R.status <> 'deleted'`, parent: `''` },
  { table: 'payments', visible: 'true', parent: 'R.debt_id' },
];

/** The trigger function of `table`; `skipUnchanged` false reproduces 001_core's definition. */
function counterFunction({ table, visible, parent }: (typeof COUNTED)[number], skipUnchanged: boolean): string {
  const v = (r: string) => visible.replaceAll('R.', `${r}.`);
  const p = (r: string) => parent.replaceAll('R.', `${r}.`);
  const unchanged = skipUnchanged
    ? `IF TG_OP = 'UPDATE' AND (${v('OLD')}) = (${v('NEW')}) AND OLD.tenant_id = NEW.tenant_id AND ${p('OLD')} = ${p('NEW')} THEN
          RETURN NULL;
        END IF;`
    : '';
  return `
    CREATE OR REPLACE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${unchanged}
      IF TG_OP IN ('UPDATE', 'DELETE') AND (${v('OLD')}) THEN
        PERFORM bump_list_counter(OLD.tenant_id, '${table}', ${p('OLD')}, -1);
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND (${v('NEW')}) THEN
        PERFORM bump_list_counter(NEW.tenant_id, '${table}', ${p('NEW')}, 1);
      END IF;
      RETURN NULL;
    END $$`;
}

export async function up(knex: Knex): Promise<void> {
  for (const counted of COUNTED) await knex.raw(counterFunction(counted, true));
}

export async function down(knex: Knex): Promise<void> {
  for (const counted of COUNTED) await knex.raw(counterFunction(counted, false));
}
