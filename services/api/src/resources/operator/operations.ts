/**
 * The operator API (docs/api.md section 12): routes under `/operator/` for the platform's own
 * staff and automation, behind `operations:read` / `operations:write`, which only operator clients
 * hold (a tenant's token is 403 and changes nothing). Every request names the tenant it acts for
 * in `Tenant-Id`; every change records `whodunnit: operator:<client id>` and its reason.
 */
import { OperatorStatusChange, TRANSITIONS, OPERATOR_MOVES, debtsResource, operatorMove } from '@dms/domain/debts';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { querySchema } from '../../operations/query.js';
import { CommunicationClassify, classifyCommunication, communicationsResource, markDetailUndeliverable } from '@dms/domain/communications';
import { ContactDetail, contactDetailsResource } from '@dms/domain/contact-details';
import { showDebts } from '../debts/operations.js';
import { Debt } from '../debts/schemas.js';
import { Communication as CommunicationObject } from '@dms/domain/communications';

const write = { token: true, scope: 'operations:write' } as const;

/** "`queried` (from …)" for each status an operator may name: the table's own rules. */
const targets = Object.entries(OPERATOR_MOVES)
  .map(([status, move]) => `\`${status}\` (from ${TRANSITIONS[move].from.map((s) => `\`${s}\``).join(', ')})`)
  .join('; ');

/** The operations of `/operator/`. */
export const operatorOperations: AnyOperation[] = [
  defineOperation({
    method: 'post',
    path: '/operator/debts/{id}/status',
    operationId: 'operatorMoveDebt',
    tag: 'Operator',
    summary: 'Move a debt to an operations, legal or action-required status',
    description: `Operators only, with \`Tenant-Id\`. Moves the debt as the lifecycle allows: ${targets}. Any other move is 409 \`invalid_state_transition\` and changes nothing. \`end_at\` is for \`legal_protection\` alone: the protection then ends by itself and the debt resumes.`,
    access: write,
    pathParams: { id: debtsResource.idPrefix },
    query: querySchema(showDebts.expand),
    body: { name: 'OperatorStatusChange', schema: OperatorStatusChange },
    response: { name: 'Debt', schema: Debt, status: 200 },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: Object.keys(OPERATOR_MOVES).map((status) => `debt.${status}` as `debt.${keyof typeof OPERATOR_MOVES}`),
    handler: (i) => showDebts.one(i, operatorMove(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit)),
  }),
  defineOperation({
    method: 'post',
    path: '/operator/communications/{id}/classify',
    operationId: 'operatorClassifyCommunication',
    tag: 'Operator',
    summary: 'Classify an inbound communication',
    description:
      'Operators only, with `Tenant-Id`. `query` moves the debt to `queried`, `dispute` to `disputed` (as the lifecycle allows; otherwise 409 and nothing changes), `other` records the classification alone. An outbound communication is 409.',
    access: write,
    pathParams: { id: communicationsResource.idPrefix },
    body: { name: 'CommunicationClassify', schema: CommunicationClassify },
    response: { name: 'CommunicationClassified', schema: CommunicationObject, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['debt.queried', 'debt.disputed'],
    handler: (i) => classifyCommunication(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit),
  }),
  defineOperation({
    method: 'post',
    path: '/operator/contact_details/{id}/undeliverable',
    operationId: 'operatorMarkUndeliverable',
    tag: 'Operator',
    summary: 'Mark a contact detail undeliverable',
    description:
      'Operators only, with `Tenant-Id`. The detail becomes `undeliverable` (its metadata `undeliverable_by` names the operator): the engine never sends to it again, and each debt of the customer being worked that has no usable detail left moves to `enriching` or `contact_failed`. A deleted detail is 409.',
    access: write,
    pathParams: { id: contactDetailsResource.idPrefix },
    response: { name: 'ContactDetail', schema: ContactDetail, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['customer_contact_detail.updated', 'debt.contact_failed', 'debt.enriching'],
    handler: (i) => markDetailUndeliverable(i.ctx.db, i.tenantId, i.params.id, actor(i).whodunnit),
  }),
];
