/**
 * `POST /debts/{id}/{action}` (docs/api.md sections 6 and 9): one operation per lifecycle action,
 * built from the transition table itself (@dms/domain's debts/states.ts), each with an optional body (`reason`;
 * `end_at` for pause, `info` for withdraw) and behind `debts:write`. Answers the moved debt, or
 * 409 when the action is not allowed from its status. The status records the client as `whodunnit`.
 * Each takes `expand[]` as the other debt operations do (docs/api.md section 10).
 */
import type { EventType } from '@dms/domain';
import { Type, reasonBodySchema, textSchema, timestampSchema } from '@dms/domain/kernel';
import { DEBT_ACTIONS, TRANSITIONS, actOnDebt, type DebtAction } from '@dms/domain/debts';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { querySchema } from '../../operations/query.js';
import { showDebts } from './operations.js';
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

const reason = reasonBodySchema.properties.reason;

/** The body of each action: `reason`, plus `end_at` (pause) or `info` (withdraw). */
const ActionBody = Type.Object(
  {
    reason: Type.Optional(reason),
    end_at: Type.Optional(
      Type.Union([timestampSchema(), Type.String({ format: 'date', maxLength: 10 })], {
        description:
          "When the pause ends by itself: a future time, or a date (`2026-12-24`: the start of that day in the customer's time zone, from its `preferred_locale`); the worker then resumes the debt.",
      }),
    ),
    info: Type.Optional(textSchema(500, 'Why the debt is withdrawn; shown as the status `context`.')),
  },
  { additionalProperties: false },
);

function bodyOf(action: DebtAction) {
  if (action === 'pause')
    return {
      name: 'DebtPause',
      schema: Type.Object({ reason: ActionBody.properties.reason, end_at: ActionBody.properties.end_at }, { additionalProperties: false }),
    };
  if (action === 'withdraw')
    return {
      name: 'DebtWithdraw',
      schema: Type.Object({ reason: ActionBody.properties.reason, info: ActionBody.properties.info }, { additionalProperties: false }),
    };
  return { name: 'DebtActionReason', schema: reasonBodySchema };
}

/** `POST /debts/{id}/{action}` of one action: moves the debt, records `debt.<new status>`. */
function actionOperation(action: DebtAction): AnyOperation {
  const rule = TRANSITIONS[action];
  const camel = action.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
  const planNote = ['resume', 'resolve-dispute'].includes(action) ? ' (`paying` while the debt has an active payment plan)' : '';
  const events: EventType[] = [
    `debt.${rule.to}` as EventType,
    ...(planNote ? (['debt.paying'] as EventType[]) : []),
    ...(['settle', 'withdraw'].includes(action) ? (['payment_plan.canceled'] as EventType[]) : []),
  ];
  return defineOperation({
    method: 'post',
    path: `/debts/{id}/${action}`,
    operationId: `${camel}Debt`,
    tag: 'Debt lifecycle',
    summary: ACTION_SUMMARIES[action],
    description: `Moves the debt from ${rule.from.map((s) => `\`${s}\``).join(', ')} to \`${rule.to}\`${planNote}; any other status is 409 \`invalid_state_transition\`. The optional \`reason\` is stored on the status.`,
    access: { token: true, scope: 'debts:write' },
    pathParams: { id: 'deb' },
    query: querySchema(showDebts.expand),
    body: { ...bodyOf(action), optional: true },
    response: { name: 'Debt', schema: Debt, status: 200 },
    errors: ['invalid_state_transition', ...(action === 'pause' ? (['business_rule_violation'] as const) : [])],
    events,
    handler: (i) => showDebts.one(i, actOnDebt(i.ctx.db, i.tenantId, i.params.id, action, i.body, actor(i).whodunnit)),
  });
}

/** The lifecycle operations, one per action of DEBT_ACTIONS. */
export const debtLifecycleOperations: AnyOperation[] = DEBT_ACTIONS.map(actionOperation);
