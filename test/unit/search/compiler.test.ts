/**
 * Compiler of the search language (docs/api.md sections 4 and 10) against the debt and customer field
 * registries, checked on the SQL Knex would send (a `pg` client with no connection, `toSQL()`):
 * every value reaches PostgreSQL only as a bind parameter, column names come only from the
 * registries, each field kind yields its condition, and bad terms name their position.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import knexFactory, { type Knex } from 'knex';
import { applySearch, compileSearch, type SearchRegistry } from '../../../libs/search/src/compiler.js';
import { exactText, integer } from '../../../libs/search/src/field-kinds.js';
import { CUSTOMER_SEARCH_FIELDS } from '../../../libs/domain/src/customers/search.js';
import { DEBT_SEARCH_FIELDS } from '../../../libs/domain/src/debts/search.js';
import { expectSearchError } from './errors.js';

const db: Knex = knexFactory({ client: 'pg' });
afterAll(() => db.destroy());

const DEBTS = 'select "debts"."id" from "debts" where ';
const CUSTOMERS = 'select "customers"."id" from "customers" where ';

/** The WHERE clause (with `$n` placeholders) and bindings a debt search compiles to. */
function debtWhere(query: string): { sql: string; bindings: readonly unknown[] } {
  const { sql, bindings } = compileSearch(db('debts').select('debts.id'), query, DEBT_SEARCH_FIELDS).toSQL().toNative();
  expect(sql.startsWith(DEBTS)).toBe(true);
  return { sql: sql.slice(DEBTS.length), bindings };
}

/** The same for a customer search. */
function customerWhere(query: string): { sql: string; bindings: readonly unknown[] } {
  const { sql, bindings } = compileSearch(db('customers').select('customers.id'), query, CUSTOMER_SEARCH_FIELDS).toSQL().toNative();
  expect(sql.startsWith(CUSTOMERS)).toBe(true);
  return { sql: sql.slice(CUSTOMERS.length), bindings };
}

/** The e-mail subquery over the contact details (index contact_details_email), for a customer id column. */
const emailSql = (column: string) =>
  `${column} = ANY(ARRAY(SELECT email_match.customer_id FROM customer_contact_details AS email_match ` +
  `WHERE email_match.type = 'email' AND email_match.status <> 'deleted' AND lower(email_match.value) = lower($1)))`;

/** The plan subquery of `payment_plan.status` (index payment_plans_search_status), bound at `$n`. */
const planStatusSql = (n = 1) =>
  `EXISTS (SELECT 1 FROM "payment_plans" AS related_match WHERE "related_match"."debt_id" = "debts"."id" ` +
  `AND "related_match"."tenant_id" = "debts"."tenant_id" AND "related_match"."status" = $${n})`;
const EMAIL_SQL = emailSql('"customers"."id"');

describe('registries', () => {
  test('debt fields are those of the reference', () => {
    expect(Object.keys(DEBT_SEARCH_FIELDS).sort()).toEqual(
      [
        'account_number',
        'amount_remaining',
        'created_at',
        'currency',
        'customer_id',
        'organisation_id',
        'status',
        'tag',
        'updated_at',
        // docs/api.md section 10
        'amount',
        'kind',
        'metadata',
        'customer.email',
        'payment_plan.status',
      ].sort(),
    );
  });

  test('customer fields are those of the reference', () => {
    expect(Object.keys(CUSTOMER_SEARCH_FIELDS).sort()).toEqual(['created_at', 'email', 'full_name', 'metadata']);
  });
});

describe('field kinds compile to parameterised conditions', () => {
  test.each([
    ['status:prepared', '"debts"."status" = $1', 'prepared'],
    ['currency:USD', '"debts"."currency" = $1', 'USD'],
    ['account_number:JAN-1', '"debts"."account_number" = $1', 'JAN-1'],
    ['customer_id:cus_1', '"debts"."customer_id" = $1', 'cus_1'],
    ['organisation_id:org_1', '"debts"."organisation_id" = $1', 'org_1'],
  ])('exact text / enum: %s', (query, sql, value) => {
    expect(debtWhere(query)).toEqual({ sql, bindings: [value] });
  });

  test('enum values are bound as written, case-sensitively (an unknown one simply matches nothing)', () => {
    expect(debtWhere('status:Prepared').bindings).toEqual(['Prepared']);
    expect(debtWhere('status:bogus')).toEqual({ sql: '"debts"."status" = $1', bindings: ['bogus'] });
  });

  test('tags: array containment', () => {
    expect(debtWhere('tag:"late fee"')).toEqual({ sql: '"debts"."tags" @> ARRAY[$1]::text[]', bindings: ['late fee'] });
  });

  test.each([
    [':', '='],
    ['>', '>'],
    ['>=', '>='],
    ['<', '<'],
    ['<=', '<='],
  ])('amounts: integer %s becomes %s with a numeric binding', (op, sqlOp) => {
    expect(debtWhere(`amount_remaining${op}1000`)).toEqual({ sql: `"debts"."amount_remaining" ${sqlOp} $1`, bindings: [1000] });
  });

  test('amounts: negative and 15-digit integers are accepted', () => {
    expect(debtWhere('amount_remaining>-5').bindings).toEqual([-5]);
    expect(debtWhere('amount_remaining<999999999999999').bindings).toEqual([999999999999999]);
  });

  test('full_name: case-insensitive contains, LIKE wildcards escaped in the binding', () => {
    expect(customerWhere('full_name:ada')).toEqual({ sql: '"customers"."full_name" ILIKE $1', bindings: ['%ada%'] });
    expect(customerWhere(String.raw`full_name:"100%_a\\b"`)).toEqual({
      sql: '"customers"."full_name" ILIKE $1',
      bindings: [String.raw`%100\%\_a\\b%`],
    });
  });

  test('email: the indexed contact details subquery, the address bound once', () => {
    expect(customerWhere('email:Ada@Example.com')).toEqual({ sql: EMAIL_SQL, bindings: ['Ada@Example.com'] });
  });

  test('terms are ANDed onto the conditions already on the query (the tenant scope)', () => {
    const q = db('debts').select('debts.id').where('debts.tenant_id', 'ten_1');
    const { sql, bindings } = compileSearch(q, 'status:paused AND tag:q1 AND amount_remaining>=10', DEBT_SEARCH_FIELDS).toSQL().toNative();
    expect(sql).toBe(`${DEBTS}"debts"."tenant_id" = $1 and "debts"."status" = $2 and "debts"."tags" @> ARRAY[$3]::text[] and "debts"."amount_remaining" >= $4`);
    expect(bindings).toEqual(['ten_1', 'paused', 'q1', 10]);
  });
});

describe('section 10: new fields, = and OR', () => {
  test('amount is amount_total, with every comparison', () => {
    expect(debtWhere('amount>=500')).toEqual({ sql: '"debts"."amount_total" >= $1', bindings: [500] });
    expect(debtWhere('amount=500')).toEqual({ sql: '"debts"."amount_total" = $1', bindings: [500] });
  });

  test('kind is exact text', () => {
    expect(debtWhere('kind:rent')).toEqual({ sql: '"debts"."kind" = $1', bindings: ['rent'] });
  });

  test("metadata['key'] is JSON containment with key and value in one bound document", () => {
    expect(debtWhere("metadata['crm_id']:'A-1'")).toEqual({ sql: '"debts"."metadata" @> $1::jsonb', bindings: ['{"crm_id":"A-1"}'] });
    expect(debtWhere('metadata["x"]=y').bindings).toEqual(['{"x":"y"}']);
  });

  test("customer.email follows the debt's customer through the e-mail index", () => {
    expect(debtWhere('customer.email:Ada@Example.com')).toEqual({ sql: emailSql('"debts"."customer_id"'), bindings: ['Ada@Example.com'] });
  });

  test("payment_plan.status is an EXISTS over the debt's plans, in the same tenant; equality only", () => {
    expect(debtWhere('payment_plan.status:active')).toEqual({ sql: planStatusSql(), bindings: ['active'] });
    expect(debtWhere("payment_plan.status='broken' OR status:paused")).toEqual({
      sql: `((${planStatusSql()}) or ("debts"."status" = $2))`,
      bindings: ['broken', 'paused'],
    });
    expectSearchError(() => debtWhere('payment_plan.status>=active'), 20, "Operator '>=' is not allowed for 'payment_plan.status'");
  });

  test('= is the same as :', () => {
    expect(debtWhere('status=paused')).toEqual(debtWhere('status:paused'));
    expect(customerWhere('email=a@b.c')).toEqual(customerWhere('email:a@b.c'));
  });

  test('OR becomes one group of alternatives, ANDed onto the tenant scope', () => {
    const q = db('debts').select('debts.id').where('debts.tenant_id', 'ten_1');
    const { sql, bindings } = compileSearch(q, 'status:paused or created_at:2026-01-15 OR tag:q1', DEBT_SEARCH_FIELDS).toSQL().toNative();
    expect(sql).toBe(
      `${DEBTS}"debts"."tenant_id" = $1 and (("debts"."status" = $2) or ("debts"."created_at" >= $3 and "debts"."created_at" < $4) or ("debts"."tags" @> ARRAY[$5]::text[]))`,
    );
    expect(bindings).toEqual(['ten_1', 'paused', new Date('2026-01-15T00:00:00Z'), new Date('2026-01-16T00:00:00Z'), 'q1']);
  });

  test('spaces and lower-case and are AND', () => {
    expect(debtWhere('status:paused tag:q1')).toEqual(debtWhere('status:paused AND tag:q1'));
    expect(debtWhere('status:paused and tag:q1')).toEqual(debtWhere('status:paused AND tag:q1'));
  });

  test('a bad value in an OR query is refused at once, with its position', () => {
    expectSearchError(() => debtWhere('status:paused OR amount>lots'), 25, "Expected an integer but found 'lots' for 'amount'");
  });

  test('keys: metadata needs one, other fields take none', () => {
    expectSearchError(() => debtWhere('metadata:x'), 1, "Field 'metadata' needs a key: metadata['key']");
    expectSearchError(() => debtWhere("status['x']:y"), 8, "Field 'status' takes no key");
  });

  test('metadata and customer.email allow equality only', () => {
    expectSearchError(() => debtWhere("metadata['a']>1"), 14, "Operator '>' is not allowed for 'metadata' (allowed: :)");
    expectSearchError(() => debtWhere('customer.email<a'), 15, "Operator '<' is not allowed for 'customer.email'");
  });
});

describe('dates and timestamps', () => {
  const day = new Date('2026-01-15T00:00:00Z');
  const nextDay = new Date('2026-01-16T00:00:00Z');
  const col = '"debts"."created_at"';

  test.each([
    [':', `${col} >= $1 and ${col} < $2`, [day, nextDay]],
    ['>', `${col} >= $1`, [nextDay]],
    ['>=', `${col} >= $1`, [day]],
    ['<', `${col} < $1`, [day]],
    ['<=', `${col} < $1`, [nextDay]],
  ])('a date is its whole UTC day: created_at%s2026-01-15', (op, sql, bindings) => {
    expect(debtWhere(`created_at${op}2026-01-15`)).toEqual({ sql, bindings });
  });

  test('a day at the end of a leap February rolls into March', () => {
    expect(debtWhere('updated_at:2028-02-29').bindings).toEqual([new Date('2028-02-29T00:00:00Z'), new Date('2028-03-01T00:00:00Z')]);
  });

  test.each([
    [':', '='],
    ['>', '>'],
    ['>=', '>='],
    ['<', '<'],
    ['<=', '<='],
  ])('a timestamp is an instant: %s becomes %s', (op, sqlOp) => {
    expect(debtWhere(`updated_at${op}2026-01-15T12:00:00Z`)).toEqual({
      sql: `"debts"."updated_at" ${sqlOp} $1`,
      bindings: [new Date('2026-01-15T12:00:00Z')],
    });
  });

  test.each([
    ['2026-03-10T09:30:00+01:00', '2026-03-10T08:30:00.000Z'],
    ['2026-03-10T08:30:00.123Z', '2026-03-10T08:30:00.123Z'],
    ['2026-03-10t08:30:00.123456789z', '2026-03-10T08:30:00.123Z'],
    ['2026-03-10T00:30:00-02:30', '2026-03-10T03:00:00.000Z'],
  ])('RFC 3339 offsets and fractions: %s', (value, instant) => {
    const { bindings } = debtWhere(`created_at:${value}`);
    expect((bindings[0] as Date).toISOString()).toBe(instant);
  });

  test.each([
    '2026-02-30',
    '2026-13-01',
    '2026-00-10',
    '2026-1-5',
    '0000-01-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60:00Z',
    '2026-01-01T10:00:00',
    '2026-02-30T10:00:00Z',
    'yesterday',
    '1736899200',
  ])('%s is not a date or timestamp', (value) => {
    expectSearchError(() => debtWhere(`created_at>${value}`), 12, `Expected an RFC 3339 timestamp or a YYYY-MM-DD date but found '${value}' for 'created_at'`);
  });
});

describe('values only ever reach SQL as bindings', () => {
  const INJECTIONS = ["x' OR '1'='1", "'); DROP TABLE debts; --", 'a" OR "1"="1', '1; SELECT pg_sleep(10)', '$1', '?', '??', '\\', "%' --"];

  /** Quotes a value for the query language, so any string can be searched for. */
  const quoted = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

  test.each(INJECTIONS)('%s', (value) => {
    expect(debtWhere(`account_number:${quoted(value)}`)).toEqual({ sql: '"debts"."account_number" = $1', bindings: [value] });
    expect(debtWhere(`status:${quoted(value)}`)).toEqual({ sql: '"debts"."status" = $1', bindings: [value] });
    expect(debtWhere(`tag:${quoted(value)}`)).toEqual({ sql: '"debts"."tags" @> ARRAY[$1]::text[]', bindings: [value] });
    expect(customerWhere(`email:${quoted(value)}`)).toEqual({ sql: EMAIL_SQL, bindings: [value] });
    const contains = customerWhere(`full_name:${quoted(value)}`);
    expect(contains.sql).toBe('"customers"."full_name" ILIKE $1');
    expect(contains.bindings).toHaveLength(1);
    expect(String(contains.bindings[0]).replace(/\\(.)/g, '$1')).toBe(`%${value}%`);
  });

  test.each(INJECTIONS)('in a metadata key and value, and in customer.email: %s', (value) => {
    const q = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    expect(debtWhere(`metadata[${q(value)}]:${q(value)}`)).toEqual({ sql: '"debts"."metadata" @> $1::jsonb', bindings: [JSON.stringify({ [value]: value })] });
    expect(debtWhere(`customer.email:${q(value)}`)).toEqual({ sql: emailSql('"debts"."customer_id"'), bindings: [value] });
    expect(debtWhere(`kind:${q(value)} OR amount=1`)).toEqual({ sql: '(("debts"."kind" = $1) or ("debts"."amount_total" = $2))', bindings: [value, 1] });
    expect(debtWhere(`payment_plan.status:${q(value)}`)).toEqual({ sql: planStatusSql(), bindings: [value] });
  });

  test('a SQL fragment as a bare value is one binding too', () => {
    expect(debtWhere("account_number:x';DELETE")).toEqual({ sql: '"debts"."account_number" = $1', bindings: ["x';DELETE"] });
  });

  test('non-integer amounts are refused before reaching SQL', () => {
    expectSearchError(() => debtWhere("amount_remaining:1'"), 18, "Expected an integer but found '1'' for 'amount_remaining'");
  });
});

describe('errors name the position of the offending part', () => {
  test('an unknown field lists the allowed ones', () => {
    const err = expectSearchError(() => debtWhere('status:prepared AND colour:red'), 21, "Unknown field 'colour'");
    expect(err.message).toContain(`(allowed: ${Object.keys(DEBT_SEARCH_FIELDS).join(', ')})`);
    expectSearchError(() => customerWhere('status:prepared'), 1, "Unknown field 'status' (allowed: email, full_name, created_at, metadata)");
  });

  test('field names are case-sensitive', () => {
    expectSearchError(() => debtWhere('Status:prepared'), 1, "Unknown field 'Status'");
  });

  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('inherited property %s is not a field', (name) => {
    expectSearchError(() => debtWhere(`${name}:x`), 1, `Unknown field '${name}'`);
  });

  test.each(['status', 'currency', 'account_number', 'customer_id', 'organisation_id', 'tag'])('equality-only field %s refuses ordering operators', (field) => {
    for (const op of ['>', '>=', '<', '<=']) {
      expectSearchError(() => debtWhere(`${field}${op}x`), field.length + 1, `Operator '${op}' is not allowed for '${field}' (allowed: :)`);
    }
  });

  test('customer text fields refuse ordering operators', () => {
    expectSearchError(() => customerWhere('full_name>a'), 10, "Operator '>' is not allowed for 'full_name' (allowed: :)");
    expectSearchError(() => customerWhere('email<=a@b.c'), 6, "Operator '<=' is not allowed for 'email'");
  });

  test.each(['abc', '1.5', '1e3', '0x10', '+5', '1234567890123456', '1,000', ''])('amount %j is not an integer', (value) => {
    const query = `amount_remaining>=${value === '' ? '""' : value}`;
    expectSearchError(() => debtWhere(query), 19, `Expected an integer but found '${value}' for 'amount_remaining'`);
  });

  test('the error of a later term points at that term', () => {
    expectSearchError(() => debtWhere('status:paused AND amount_remaining<lots'), 36, "found 'lots'");
  });
});

describe('applySearch with a custom registry', () => {
  test("applies terms in order through the registry's columns only", () => {
    const registry: SearchRegistry = { name: exactText('t.name_col'), n: integer('t.n_col') };
    const q = applySearch(
      db('t').select('t.id'),
      {
        connective: 'AND',
        terms: [
          { field: 'n', fieldPos: 1, op: '<', opPos: 2, value: '3', valuePos: 3 },
          { field: 'name', fieldPos: 9, op: ':', opPos: 13, value: 'x', valuePos: 14 },
        ],
      },
      registry,
    );
    expect(q.toSQL().toNative()).toEqual({ sql: 'select "t"."id" from "t" where "t"."n_col" < $1 and "t"."name_col" = $2', bindings: [3, 'x'] });
  });

  test('an error other than a value error is not turned into a 400', () => {
    const boom = new TypeError('boom');
    const registry: SearchRegistry = {
      f: {
        operators: [':'],
        expects: 'anything',
        apply: () => {
          throw boom;
        },
      },
    };
    expect(() => compileSearch(db('t'), 'f:1', registry)).toThrow(boom);
  });
});
