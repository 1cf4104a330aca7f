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
import { PAYOUT_MACHINE, PayoutRunRequest, PayoutRunResult, PayoutStatusChange, movePayout, payoutsResource, runPayoutsNow } from '@dms/domain/payouts';
import { payoutView, showPayouts } from '../payouts/operations.js';
import { Payout } from '../payouts/schemas.js';
import { Communication as CommunicationObject } from '@dms/domain/communications';

const write = { token: true, scope: 'operations:write' } as const;

/** "`queried` (from …)" for each status an operator may name: the table's own rules. */
const targets = Object.entries(OPERATOR_MOVES)
  .map(([status, move]) => `\`${status}\` (from ${TRANSITIONS[move].from.map((s) => `\`${s}\``).join(', ')})`)
  .join('; ');

/** "`paid` (from …)" for each status a payout may be marked: the payout machine's own table. */
const payoutTargets = PAYOUT_MACHINE.moves.map((m) => `\`${m}\` (from ${PAYOUT_MACHINE.table[m].from.map((s) => `\`${s}\``).join(', ')})`).join('; ');

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
    path: '/operator/payouts/run',
    operationId: 'operatorRunPayouts',
    tag: 'Operator',
    summary: 'Run payouts now',
    description:
      "Operators only, with `Tenant-Id`. With `organisation_id`, runs that organisation's payouts now (one per currency with money to pay out), due or not; without, every payout of the tenant that is due on its schedule. Each run is the worker's own: set-based, in one transaction with `payout.created`.",
    access: write,
    body: { name: 'PayoutRunRequest', schema: PayoutRunRequest, optional: true },
    response: { name: 'PayoutRunResult', schema: PayoutRunResult, status: 200 },
    errors: ['resource_missing'],
    events: ['payout.created'],
    handler: async (i) => ({ object: 'payout_run' as const, payouts: (await runPayoutsNow(i.ctx.db, i.tenantId, i.body.organisation_id)).map((p) => p.id) }),
  }),
  defineOperation({
    method: 'post',
    path: '/operator/payouts/{id}/status',
    operationId: 'operatorMovePayout',
    tag: 'Operator',
    summary: 'Mark a payout in transit, paid or failed',
    description: `Operators only, with \`Tenant-Id\`. ${payoutTargets}. \`failed\` needs a \`reason\` and returns the payout's amount to the organisation's next payout (its items stay in this one). Any other move is 409 \`invalid_state_transition\` and changes nothing.`,
    access: write,
    pathParams: { id: payoutsResource.idPrefix },
    query: querySchema(showPayouts.expand),
    body: { name: 'PayoutStatusChange', schema: PayoutStatusChange },
    response: { name: 'Payout', schema: Payout, status: 200 },
    errors: ['invalid_state_transition'],
    events: ['payout.in_transit', 'payout.paid', 'payout.failed'],
    handler: async (i) => showPayouts.one(i, payoutView(await movePayout(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit))),
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
