/**
 * The operator API (docs/api.md section 12): routes under `/operator/` for the platform's own
 * staff and automation, behind `operations:read` / `operations:write`, which only operator clients
 * hold (a tenant's token is 403 and changes nothing). Every request names the tenant it acts for
 * in `Tenant-Id`; every change records `whodunnit: operator:<client id>` and its reason.
 */
import { OperatorStatusChange, TRANSITIONS, OPERATOR_MOVES, debtsResource, operatorMove } from '@dms/domain/debts';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { querySchema } from '../../operations/query.js';
import { showDebts } from '../debts/operations.js';
import { Debt } from '../debts/schemas.js';

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
];
