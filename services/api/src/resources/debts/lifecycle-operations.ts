/**
 * `POST /debts/{id}/{action}` (docs/api.md section 6): one operation per lifecycle action, built
 * from the transition table itself (lifecycle.ts), each with an optional `{"reason"}` body and
 * behind `debts:write`. Answers the moved debt, or 409 when the action is not allowed from its
 * status.
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import type { EventType } from '../../db/outbox.js';
import { reasonBodySchema } from '../../schemas/common.js';
import { DEBT_ACTIONS, TRANSITIONS, type DebtAction } from './lifecycle.js';
import { moveDebt } from './moves.js';
import { Debt } from './schemas.js';

const ACTION_SUMMARIES: Record<DebtAction, string> = {
  ready: 'Mark a debt ready for collection',
  pause: 'Pause collection of a debt',
  resume: 'Resume collection of a paused debt',
  dispute: 'Record that the customer disputes a debt',
  'resolve-dispute': 'Resolve the dispute of a debt',
  settle: 'Settle a debt for less than the balance',
  withdraw: 'Withdraw a debt from collection',
};

/** `POST /debts/{id}/{action}` of one action: moves the debt, records `debt.<new status>`. */
function actionOperation(action: DebtAction): AnyOperation {
  const rule = TRANSITIONS[action];
  const camel = action.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
  return defineOperation({
    method: 'post',
    path: `/debts/{id}/${action}`,
    operationId: `${camel}Debt`,
    tag: 'Debt lifecycle',
    summary: ACTION_SUMMARIES[action],
    description: `Moves the debt from ${rule.from.map((s) => `\`${s}\``).join(', ')} to \`${rule.to}\`; any other status is 409 \`invalid_state_transition\`. The optional \`reason\` is stored on the status.`,
    access: { token: true, scope: 'debts:write' },
    pathParams: { id: 'deb' },
    body: { name: 'DebtActionReason', schema: reasonBodySchema, optional: true },
    response: { name: 'Debt', schema: Debt, status: 200 },
    errors: ['invalid_state_transition'],
    events: [`debt.${rule.to}` as EventType],
    handler: (i) => moveDebt(i.ctx.db, i.tenantId, i.params.id!, action, i.body.reason ?? null),
  });
}

/** The lifecycle operations, one per action of DEBT_ACTIONS. */
export const debtLifecycleOperations: AnyOperation[] = DEBT_ACTIONS.map(actionOperation);
