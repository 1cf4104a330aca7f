/**
 * `/debts` (docs/api.md sections 4, 5 and 10): list, search, create, retrieve, update and delete
 * (the last two only while `initializing`), with `expand[]` on every read and write, behind
 * `debts:read` / `debts:write`; other tenants' ids answer 404.
 */
import { defineOperation, type AnyOperation, type OperationInput } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema } from '../../operations/query.js';
import { expandOne, expandQuery, expanderFor } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { searchQuery } from '../../search/query-schema.js';
import { DEBT_SEARCH_FIELDS } from '../../search/registries.js';
import { deletedObject, deletedObjectSchema } from '../../schemas/common.js';
import { Debt, DebtCreate, DebtUpdate, Summary, type DebtRow } from './schemas.js';
import { createDebt, toDebt, toSummary, updateDebt } from './store.js';
import { DEBT_EXPANSIONS } from './expansion.js';
import { moveDebt } from './moves.js';

const names = crud({ path: '/debts', idPrefix: 'deb', tag: 'Debts', noun: 'debt', read: 'debts:read', write: 'debts:write' });
const object = { name: 'Debt', schema: Debt };
const expand = expandQuery(DEBT_EXPANSIONS);

/** Serializes rows with the `expand[]` of the request (ids only when absent). */
const serializer = (i: OperationInput<unknown, unknown>) => (rows: DebtRow[]) => expanderFor(DEBT_EXPANSIONS, i)(rows.map((r) => toDebt(r)));

/** The operations of `/debts` (the lifecycle actions are in lifecycle-operations.ts). */
export const debtOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<DebtRow, Debt>(i, { table: 'debts', counter: () => ['debts'], serialize: serializer(i) }),
  }),
  defineOperation({
    ...names.search,
    query: searchQuery(DEBT_SEARCH_FIELDS, expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<DebtRow, Debt>(i, { table: 'debts', fields: DEBT_SEARCH_FIELDS, serialize: serializer(i) }),
  }),
  defineOperation({
    ...names.create,
    query: querySchema(expand),
    body: { name: 'DebtCreate', schema: DebtCreate },
    response: { ...object, status: 201 },
    description:
      'Takes `line_items` (1 to 100), or the shorthand `breakdown` (`principal` → a `debt` item, `interest` → `interest`, `fees` → `fee`), or neither (a debt of 0, filled in later with line items). The summary is computed from the items.',
    errors: ['resource_missing', 'business_rule_violation'],
    events: ['debt.created', 'line_item.created'],
    handler: async (i) => expandOne(DEBT_EXPANSIONS, i, await createDebt(i.ctx.db, i.tenantId, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(expand),
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, 'debts', async (row: DebtRow) => (await serializer(i)([row]))[0]!),
  }),
  defineOperation({
    ...names.retrieve,
    path: '/debts/{id}/summary',
    operationId: 'retrieveDebtSummary',
    summary: "Retrieve a debt's summary",
    description: 'The `summary` of the debt: line items summed by kind, succeeded payments less refunds, and what remains (minor units).',
    response: { name: 'DebtSummary', schema: Summary, status: 200 },
    handler: (i) => retrieveOne(i, 'debts', (row: DebtRow) => toSummary(row)),
  }),
  defineOperation({
    ...names.update,
    query: querySchema(expand),
    body: { name: 'DebtUpdate', schema: DebtUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'resource_missing'],
    events: ['debt.updated'],
    handler: async (i) => expandOne(DEBT_EXPANSIONS, i, await updateDebt(i.ctx.db, i.tenantId, i.params.id!, i.body)),
  }),
  defineOperation({
    ...names.delete,
    response: { name: 'DeletedDebt', schema: deletedObjectSchema('debt'), status: 200 },
    errors: ['invalid_state_transition'],
    events: ['debt.deleted'],
    handler: async (i) => deletedObject('debt', (await moveDebt(i.ctx.db, i.tenantId, i.params.id!, 'delete', { whodunnit: i.principal.clientId })).id),
  }),
];
