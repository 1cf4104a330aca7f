/**
 * Proposals (docs/api.md section 18): `GET /proposals`, `GET /proposals/{id}`, `POST
 * /proposals/{id}/accept` and `/decline` behind `debts:read` / `debts:write` (the payment plans'
 * scopes), and the operator's twins `POST /operator/proposals/{id}/accept|decline` behind
 * `operations:write` with `Tenant-Id`. Another tenant's (or mode's) proposal is 404.
 */
import {
  Proposal,
  ProposalDecline,
  acceptProposal,
  declineProposal,
  proposalsResource,
  toProposal,
  type Proposal as ProposalObject,
  type ProposalRow,
} from '@dms/domain/proposals';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, retrieveOne } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({ resource: proposalsResource, path: '/proposals', tag: 'Proposals', read: 'debts:read', write: 'debts:write' });
const object = { name: 'Proposal', schema: Proposal };
const operatorWrite = { token: true, scope: 'operations:write' } as const;
const ACCEPT =
  'Accepts a `pending` proposal: the debt leaves `assessing` and takes the proposed plan, made as `POST /debts/{debtId}/payment_plans` makes it (`instalment_amount`, `frequency`, `start_on` of the proposal; the debt moves to `paying`). A decided proposal is 409 `invalid_state_transition`; a first payment date now past is 422 (param `start_on`); nothing changes then.';
const DECLINE =
  'Declines a `pending` proposal with its `reason`: a debt still `assessing` goes back to being worked (`resumed`). A decided proposal is 409 `invalid_state_transition` and nothing changes.';

/** The accept and decline operations at `prefix` (the tenant's `/proposals` or the operator's `/operator/proposals`). */
function decisions(prefix: '' | '/operator', access: AnyOperation['access']): AnyOperation[] {
  const who = prefix ? 'Operators only, with `Tenant-Id`. ' : '';
  return [
    defineOperation({
      ...names.create,
      path: `${prefix}/proposals/{id}/accept`,
      operationId: prefix ? 'operatorAcceptProposal' : 'acceptProposal',
      tag: prefix ? 'Operator' : 'Proposals',
      summary: 'Accept a proposal',
      description: who + ACCEPT,
      access,
      pathParams: { id: proposalsResource.idPrefix },
      response: { ...object, status: 200 },
      errors: ['invalid_state_transition', 'resource_conflict', 'business_rule_violation'],
      events: ['proposal.accepted', 'payment_plan.created', 'debt.resumed', 'debt.paying'],
      handler: (i) => acceptProposal(i.ctx.db, i.tenantId, i.params.id, actor(i)),
    }),
    defineOperation({
      ...names.create,
      path: `${prefix}/proposals/{id}/decline`,
      operationId: prefix ? 'operatorDeclineProposal' : 'declineProposal',
      tag: prefix ? 'Operator' : 'Proposals',
      summary: 'Decline a proposal',
      description: who + DECLINE,
      access,
      pathParams: { id: proposalsResource.idPrefix },
      body: { name: 'ProposalDecline', schema: ProposalDecline },
      response: { ...object, status: 200 },
      errors: ['invalid_state_transition'],
      events: ['proposal.declined', 'debt.resumed'],
      handler: (i) => declineProposal(i.ctx.db, i.tenantId, i.params.id, i.body.reason, actor(i)),
    }),
  ];
}

/** The tenant's operations of `/proposals`. */
export const proposalOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    summary: "List the tenant's proposals",
    description: 'Plans customers proposed outside the policy, newest first, paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<ProposalRow, ProposalObject>(i, { resource: proposalsResource, counter: () => ['proposals'], serialize: (rows) => rows.map(toProposal) }),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: (i) => retrieveOne(i, proposalsResource, toProposal),
  }),
  ...decisions('', { token: true, scope: 'debts:write' }),
];

/** The operator's `/operator/proposals/{id}/accept|decline`. */
export const operatorProposalOperations: AnyOperation[] = decisions('/operator', operatorWrite);
