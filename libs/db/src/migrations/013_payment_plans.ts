/**
 * Payment plans (docs/api.md section 9): a debt's instalment agreement with its schedule (JSON
 * array of `{sequence, due_on, amount, amount_paid, status}`). At most one `active` plan per debt
 * is a unique partial index, so two concurrent creates cannot both win. `next_due_on` (the due
 * date of the oldest unpaid instalment) lets the worker find overdue plans by index.
 */
import type { Knex } from 'knex';
import { createListCounter, dropListCounter, type CountedList } from './list-counter.js';

const ALL: CountedList = { table: 'payment_plans', list: 'payment_plans', parent: `''`, visible: 'true' };
const BY_DEBT: CountedList = { table: 'payment_plans', list: 'debt_payment_plans', parent: 'R.debt_id', visible: 'true' };

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_plans', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id');
    t.text('debt_id').notNullable().references('debts.id');
    t.text('status').notNullable().defaultTo('active');
    t.text('frequency').notNullable();
    t.date('start_on').notNullable();
    t.integer('grace_days').notNullable();
    t.bigInteger('amount_total').notNullable();
    t.bigInteger('amount_paid').notNullable().defaultTo(0);
    t.jsonb('schedule').notNullable();
    t.date('next_due_on');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    ALTER TABLE payment_plans
      ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
      ADD CONSTRAINT payment_plans_status CHECK (status IN ('active', 'completed', 'broken', 'canceled')),
      ADD CONSTRAINT payment_plans_frequency CHECK (frequency IN ('weekly', 'fortnightly', 'monthly')),
      ADD CONSTRAINT payment_plans_grace CHECK (grace_days BETWEEN 0 AND 30),
      ADD CONSTRAINT payment_plans_paid CHECK (amount_paid >= 0 AND amount_paid <= amount_total)`);
  await knex.raw(`CREATE UNIQUE INDEX payment_plans_one_active ON payment_plans (debt_id) WHERE status = 'active'`);
  await knex.raw('CREATE INDEX payment_plans_list ON payment_plans (tenant_id, seq)');
  await knex.raw('CREATE INDEX payment_plans_debt_list ON payment_plans (debt_id, seq)');
  await knex.raw(`CREATE INDEX payment_plans_overdue ON payment_plans ((next_due_on + grace_days)) WHERE status = 'active'`);
  await createListCounter(knex, ALL);
  await createListCounter(knex, BY_DEBT);
}

export async function down(knex: Knex): Promise<void> {
  await dropListCounter(knex, BY_DEBT);
  await dropListCounter(knex, ALL);
  await knex.schema.dropTable('payment_plans');
}
