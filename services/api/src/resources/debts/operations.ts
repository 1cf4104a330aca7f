/**
 * `/debts` (docs/api.md sections 4, 5 and 10): list, search, create, retrieve, update and delete
 * (the last two only while `initializing`), with `expand[]` on every read and write, behind
 * `debts:read` / `debts:write`; other tenants' ids answer 404. The retrieve alone adds
 * `portal_url` (docs/api.md section 5).
 */
import { deletedObject, deletedObjectSchema } from '@dms/domain/kernel';
import { debtPortalUrl } from '@dms/domain/portal';
import {
  DebtCreate,
  DebtUpdate,
  Summary,
  createDebt,
  debtsResource,
  moveDebt,
  toDebt,
  toSummary,
  updateDebt,
  type Debt as DebtObject,
  type DebtRow,
} from '@dms/domain/debts';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import { DEBT_EXPANSIONS } from './expansion.js';
import { Debt, DebtWithPortalUrl, type DebtWithPortalUrlView } from './schemas.js';

const names = crud({ resource: debtsResource, path: '/debts', tag: 'Debts' });
const object = { name: 'Debt', schema: Debt };
/** How debts are shown: ids, or the relations `expand[]` asks for. */
export const showDebts = presenter((rows: DebtRow[]) => rows.map((r) => toDebt(r)), DEBT_EXPANSIONS);

/** The operations of `/debts` (the lifecycle actions are in lifecycle-operations.ts). */
export const debtOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(showDebts.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) => listPage<DebtRow, DebtObject>(i, { resource: debtsResource, counter: () => ['debts'], serialize: showDebts.page(i) }),
  }),
  defineOperation({
    ...names.search,
    query: searchQuery(debtsResource.search, showDebts.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<DebtRow, DebtObject>(i, { resource: debtsResource, serialize: showDebts.page(i) }),
  }),
  defineOperation({
    ...names.create,
    query: querySchema(showDebts.expand),
    body: { name: 'DebtCreate', schema: DebtCreate },
    response: { ...object, status: 201 },
    description:
      'Takes `line_items` (1 to 100), or the shorthand `breakdown` (`principal` → a `debt` item, `interest` → `interest`, `fees` → `fee`), or neither (a debt of 0, filled in later with line items). The summary is computed from the items.',
    errors: ['resource_missing', 'business_rule_violation'],
    events: ['debt.created', 'line_item.created'],
    handler: (i) => showDebts.one(i, createDebt(i.ctx.db, i.tenantId, i.body)),
  }),
  defineOperation({
    ...names.retrieve,
    query: querySchema(showDebts.expand),
    response: { name: 'DebtWithPortalUrl', schema: DebtWithPortalUrl, status: 200 },
    handler: (i) =>
      retrieveOne(i, debtsResource, async (row: DebtRow): Promise<DebtWithPortalUrlView> => ({
        ...(await showDebts.row(i)(row)),
        portal_url: await debtPortalUrl(i.ctx.db, i.tenantId, row, i.ctx.cfg.PORTAL_BASE_URL),
      })),
  }),
  defineOperation({
    ...names.retrieve,
    path: '/debts/{id}/summary',
    operationId: 'retrieveDebtSummary',
    summary: "Retrieve a debt's summary",
    description: 'The `summary` of the debt: line items summed by kind, succeeded payments less refunds, and what remains (minor units).',
    response: { name: 'DebtSummary', schema: Summary, status: 200 },
    handler: (i) => retrieveOne(i, debtsResource, (row: DebtRow) => toSummary(row)),
  }),
  defineOperation({
    ...names.update,
    query: querySchema(showDebts.expand),
    body: { name: 'DebtUpdate', schema: DebtUpdate },
    response: { ...object, status: 200 },
    errors: ['invalid_state_transition', 'resource_missing'],
    events: ['debt.updated'],
    handler: (i) => showDebts.one(i, updateDebt(i.ctx.db, i.tenantId, i.params.id, i.body)),
  }),
  defineOperation({
    ...names.delete,
    response: { name: 'DeletedDebt', schema: deletedObjectSchema('debt'), status: 200 },
    errors: ['invalid_state_transition'],
    events: ['debt.deleted'],
    handler: async (i) => deletedObject('debt', (await moveDebt(i.ctx.db, i.tenantId, i.params.id, 'delete', actor(i))).id),
  }),
];
