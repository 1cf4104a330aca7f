/**
 * A customer's circumstances told through the tenant (docs/api.md section 18), behind
 * `debts:write`, each answering the moved debt (`expand[]` as the other debt operations):
 * `POST /debts/{id}/breathing_space` (to `legal_protection`) and `POST /debts/{id}/vulnerability`
 * (to `follow_up_required`, contact paused 30 days). The rules are the domain's (debts/circumstances.ts).
 */
import { BreathingSpaceInput, VulnerabilityInput, declareBreathingSpace, discloseVulnerability } from '@dms/domain/debts';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { querySchema } from '../../operations/query.js';
import { showDebts } from './operations.js';
import { Debt } from './schemas.js';

const common = {
  method: 'post',
  tag: 'Debt lifecycle',
  access: { token: true, scope: 'debts:write' },
  pathParams: { id: 'deb' },
  query: querySchema(showDebts.expand),
  response: { name: 'Debt', schema: Debt, status: 200 },
} as const;

/** The circumstance operations on a debt. */
export const debtCircumstanceOperations: AnyOperation[] = [
  defineOperation({
    ...common,
    path: '/debts/{id}/breathing_space',
    operationId: 'recordDebtBreathingSpace',
    summary: 'Record a breathing space (Debt Respite Scheme) for a debt',
    description:
      "No proof asked. Moves the debt to `legal_protection` (no contact, interest or fees): status `reason` `breathing space (<kind>)`, `context` naming the adviser reference and start. A `standard` one has `end_at` 60 days after `start_on` (the start of that day in the customer's zone), when the worker resumes the debt; a `mental_health_crisis` one has no `end_at`. A `start_on` after today, or a standard one already over, is 422 (param `start_on`); a debt already protected, terminal or `initializing` is 409.",
    body: { name: 'DebtBreathingSpace', schema: BreathingSpaceInput },
    errors: ['invalid_state_transition', 'business_rule_violation'],
    events: ['debt.legal_protection'],
    handler: (i) => showDebts.one(i, declareBreathingSpace(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit)),
  }),
  defineOperation({
    ...common,
    path: '/debts/{id}/vulnerability',
    operationId: 'recordDebtVulnerability',
    summary: 'Record a vulnerability disclosure for a debt',
    description:
      "No proof asked. Moves the debt to `follow_up_required` (the tenant must act): status `reason` `vulnerability (<kind>)`, `context` the customer's words, contact paused until `end_at` (30 days from now); the worker then resumes the debt. Allowed while the debt is being worked (409 otherwise).",
    body: { name: 'DebtVulnerability', schema: VulnerabilityInput },
    errors: ['invalid_state_transition'],
    events: ['debt.follow_up_required'],
    handler: (i) => showDebts.one(i, discloseVulnerability(i.ctx.db, i.tenantId, i.params.id, i.body, actor(i).whodunnit)),
  }),
];
