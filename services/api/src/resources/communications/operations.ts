/**
 * `/communications` and `/debts/{id}/communications` (docs/api.md section 13): list, search and
 * retrieve the tenant's communications, and list a debt's, behind `communications:read`, with
 * `expand[]` (`debt`, `customer`, `template`, `contact_detail`); and a letter's PDF. Communications
 * are made by the collection engine and by replies, never by the API.
 */
import { join } from 'node:path';
import { ApiError } from '@dms/errors';
import { debtsResource } from '@dms/domain/debts';
import {
  communicationsResource,
  loadCommunication,
  toCommunication,
  type Communication as CommunicationObject,
  type CommunicationRow,
} from '@dms/domain/communications';
import { Type } from '@sinclair/typebox';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder, retrieveOne, searchPage } from '../../operations/lists.js';
import { pageQuery, querySchema, searchQuery } from '../../operations/query.js';
import { presenter } from '../../operations/expansion.js';
import { crud } from '../../operations/crud.js';
import type { AppContext } from '../../context.js';
import { COMMUNICATION_EXPANSIONS } from './expansion.js';
import { Communication } from './schemas.js';
import { ownersShown } from '../customers/personal-data.js';

/** The PDF the local print provider kept for a letter (the channel library loads on first use). */
async function letterDocument(ctx: AppContext, communicationId: string): Promise<Buffer | null> {
  const { createLetterProvider, createLocalPrintProvider } = await import('@dms/channels');
  const dir = ctx.cfg.LETTER_DIR || join(ctx.cfg.DATA_DIR, 'letters');
  return createLetterProvider({ printer: createLocalPrintProvider({ dir }) }).document(communicationId);
}

const names = crud({
  resource: communicationsResource,
  path: '/communications',
  tag: 'Communications',
  read: 'communications:read',
  write: 'communications:write',
});
const object = { name: 'Communication', schema: Communication };
const show = presenter((rows: CommunicationRow[]) => rows.map(toCommunication), COMMUNICATION_EXPANSIONS);
const underDebt = nestedUnder(debtsResource, 'debtId', 'communications.debt_id');

/** The operations of `/communications`. */
export const communicationOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    personalData: ownersShown,
    description: 'Outbound (made by the collection engine from strategy steps) and inbound (replies) communications, newest first.',
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<CommunicationRow, CommunicationObject>(i, { resource: communicationsResource, counter: () => ['communications'], serialize: show.page(i) }),
  }),
  defineOperation({
    ...names.search,
    personalData: ownersShown,
    query: searchQuery(communicationsResource.search, show.expand),
    response: { ...object, status: 200, list: true },
    errors: ['invalid_search_query'],
    handler: (i) => searchPage<CommunicationRow, CommunicationObject>(i, { resource: communicationsResource, serialize: show.page(i) }),
  }),
  defineOperation({
    ...names.retrieve,
    personalData: ownersShown,
    query: querySchema(show.expand),
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, communicationsResource, show.row(i)),
  }),
  defineOperation({
    ...names.list,
    personalData: ownersShown,
    path: '/debts/{debtId}/communications',
    operationId: 'listDebtCommunications',
    summary: "List a debt's communications",
    description: 'Every communication about the debt, newest first. Another tenant’s (or no) debt is 404.',
    pathParams: { debtId: debtsResource.idPrefix },
    query: pageQuery(show.expand),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<CommunicationRow, CommunicationObject>(i, {
        resource: communicationsResource,
        narrow: debt.narrow,
        counter: () => ['debt_communications', debt.id],
        serialize: show.page(i),
      });
    },
  }),
  defineOperation({
    ...names.retrieve,
    path: '/communications/{id}/document',
    operationId: 'retrieveCommunicationDocument',
    summary: "A letter's PDF",
    description: 'The PDF document of a letter the engine handed to the print provider (`application/pdf`). Any other communication is 404.',
    response: { name: 'PdfDocument', schema: Type.String({ description: 'A PDF document.' }), status: 200, produces: 'text/plain' },
    handler: async (i) => {
      const row = await loadCommunication(i.ctx.db, i.tenantId, i.params.id);
      const pdf = row.delivery_method === 'letter' && row.status !== 'queued' ? await letterDocument(i.ctx, row.id) : null;
      if (!pdf) throw new ApiError('resource_missing', `No document for communication '${row.id}'`);
      i.res.type('application/pdf').send(pdf);
    },
  }),
];
