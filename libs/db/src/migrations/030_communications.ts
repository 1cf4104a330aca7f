/**
 * Communications and the collection engine (docs/api.md sections 12 and 13):
 * - `communications` (`com_`): every message to or from a customer about a debt, outbound (made by
 *   the engine from a strategy step) or inbound (a reply, an SMS). At most one outbound
 *   communication per debt and strategy step (`communications_one_per_step`), so a step runs once
 *   per debt whatever the number of workers; at most one inbound communication per provider
 *   message (`communications_inbound_once`), so a replayed callback adds nothing.
 * - `debts.engine_step`, `debts.engine_due_at`, `debts.contacted_at`: the strategy step a debt is
 *   at, when the engine looks at it next (NULL: nothing due), and when it was first contacted
 *   (strategy days count from it). `debts_engine_due` is the engine's claim index.
 * Existing debts get step 0 and no due time: the engine takes them when they are next
 * `prepared`, `adjusted` or `resumed`.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const ALL: CountedList = { table: 'communications', list: 'communications', parent: "''", visible: 'true' };
const BY_DEBT: CountedList = { table: 'communications', list: 'debt_communications', parent: 'R.debt_id', visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE communications (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      debt_id text NOT NULL REFERENCES debts(id),
      customer_id text NOT NULL REFERENCES customers(id),
      template_id text REFERENCES communication_templates(id),
      template_version integer,
      contact_detail_id text REFERENCES customer_contact_details(id),
      direction text NOT NULL CHECK (direction IN ('outbound', 'inbound')),
      delivery_method text NOT NULL CHECK (delivery_method IN ('email', 'sms', 'letter')),
      status text NOT NULL CHECK (status IN ('queued', 'sent', 'delivered', 'failed', 'bounced', 'received')),
      step integer CHECK (step >= 0),
      provider text,
      provider_reference text,
      subject text,
      body text,
      status_reason text,
      classification text CHECK (classification IN ('query', 'dispute', 'other')),
      metadata jsonb NOT NULL DEFAULT '{}',
      handed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT communications_direction_status CHECK ((direction = 'inbound') = (status = 'received'))
    )`);
  await knex.raw('CREATE INDEX communications_list ON communications (tenant_id, seq)');
  await knex.raw('CREATE INDEX communications_debt ON communications (debt_id, seq)');
  await knex.raw(
    `CREATE INDEX communications_customer_contacts ON communications (customer_id, handed_at) WHERE direction = 'outbound' AND handed_at IS NOT NULL`,
  );
  await knex.raw(`CREATE UNIQUE INDEX communications_one_per_step ON communications (debt_id, step) WHERE direction = 'outbound' AND step IS NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX communications_inbound_once ON communications (provider, provider_reference) WHERE direction = 'inbound'`);
  await knex.raw(`CREATE INDEX communications_provider_reference ON communications (provider_reference) WHERE direction = 'outbound'`);
  await knex.raw(`CREATE INDEX communications_unsettled ON communications (handed_at) WHERE status = 'queued'`);
  await createListCounter(knex, ALL);
  await createListCounter(knex, BY_DEBT);
  await knex.raw(`
    ALTER TABLE debts
      ADD COLUMN engine_step integer NOT NULL DEFAULT 0 CHECK (engine_step >= 0),
      ADD COLUMN engine_due_at timestamptz,
      ADD COLUMN contacted_at timestamptz`);
  await knex.raw('CREATE INDEX debts_engine_due ON debts (engine_due_at) WHERE engine_due_at IS NOT NULL');
  await knex.raw(
    `CREATE INDEX debts_engine_intake ON debts (status_updated_at) WHERE status IN ('prepared', 'adjusted', 'resumed', 'enriching', 'contact_failed')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS debts_engine_intake');
  await knex.raw('DROP INDEX IF EXISTS debts_engine_due');
  await knex.raw('ALTER TABLE debts DROP COLUMN contacted_at, DROP COLUMN engine_due_at, DROP COLUMN engine_step');
  await dropListCounter(knex, BY_DEBT);
  await dropListCounter(knex, ALL);
  await knex.raw('DROP TABLE communications');
}
