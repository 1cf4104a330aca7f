/**
 * The customer's circumstances in the portal (docs/api.md section 18, "Breathing space and
 * vulnerability"), two journeys of steps.ts on the session's own debt (another's is the 404 page),
 * no proof asked:
 * - `/debts/:id/breathing-space`: the kind (standard, mental-health crisis), the start date, the
 *   adviser's reference → check → done: `declareBreathingSpace`, the debt `legal_protection`;
 * - `/debts/:id/disclose`: what makes it harder (health, bereavement, income shock, other) and
 *   the customer's words (up to 2,000 characters) → check → done: `discloseVulnerability`, the debt
 *   `follow_up_required` with contact paused 30 days.
 * Both with `whodunnit` `customer:<id>` and the tenant's `debt.<status>` event; a status that does
 * not allow it is a 409 page.
 */
import { Router, type Request } from 'express';
import type { Knex } from '@dms/db';
import {
  BREATHING_SPACE_KINDS,
  BreathingSpaceInput,
  DEBT_MACHINE,
  VULNERABILITY_KINDS,
  VulnerabilityInput,
  declareBreathingSpace,
  discloseVulnerability,
  type DebtStatus,
} from '@dms/domain/debts';
import { customerDebt } from '@dms/domain/portal';
import { chosen, journeyRoutes, texted, type Answer, type Journey, type Step } from '../steps.js';
import { requireCustomer } from './debts.js';
import { longDay, parseDay } from '../days.js';

/** Longest adviser's reference and disclosure text, characters: the domain's own limits (its input schemas). */
const MAX_REFERENCE = BreathingSpaceInput.properties.adviser_reference.maxLength!;
const MAX_DETAILS = VulnerabilityInput.properties.details.maxLength!;

/** The debt as the customer sees it. */
type DebtContext = { id: string; creditor: string; status: string };

/** A radios step of one of `kinds`, its words `circumstances:<journey>.<name>.<kind>`. */
function kindStep(journey: string, kinds: readonly string[]): Step<DebtContext> {
  const key = (k: Answer) => `circumstances:${journey}.kind.${k as string}`;
  return {
    name: 'kind',
    kind: 'radios',
    choices: () => kinds.map((k) => ({ value: k, key: key(k) })),
    read: chosen('kind', 'choose', () => kinds),
    shown: (v) => [{ value: v as string, key: key(v) }],
  };
}

/** A text step shown as typed. */
function textStep(name: string, kind: 'text' | 'textarea', max: number): Step<DebtContext> {
  return { name, kind, maxLength: max, read: texted(name, max, 'text'), shown: (v) => [{ value: v as string, text: v as string }] };
}

/** A journey on the session's own debt that `move` must allow. */
function debtJourney(
  db: Knex,
  id: string,
  path: string,
  move: 'protect' | 'require-follow-up',
  steps: Step<DebtContext>[],
  submit: Journey<DebtContext>['submit'],
): Journey<DebtContext> {
  return {
    ns: 'circumstances',
    id,
    route: `/debts/:id/${path}`,
    base: (req) => `/debts/${req.params.id as string}/${path}`,
    back: (req) => `/debts/${req.params.id as string}`,
    load: async (req) => (await customerDebt(db, req.session.tenantId!, req.session.customerId!, req.params.id as string))?.debt,
    refusal: (debt) => (DEBT_MACHINE.allows(debt.status as DebtStatus, move) ? undefined : `circumstances:${id}.refused`),
    steps,
    submit,
    done: (debt) => ({ creditor: debt.creditor }),
    creditor: (debt) => debt.creditor,
  };
}

const actor = (req: Request) => `customer:${req.session.customerId!}`;

/** The circumstances routes over `db`. */
export function circumstancesRoutes(db: Knex): Router {
  const r = Router();
  r.use(['/debts/:id/breathing-space', '/debts/:id/disclose'], requireCustomer);
  const startOn: Step<DebtContext> = {
    name: 'start_on',
    kind: 'date',
    read: (body) => {
      const day = parseDay(typeof body.start_on === 'string' ? body.start_on : '');
      return day ? { value: day } : { error: 'invalid' };
    },
    shown: (v, _ctx, locale) => [{ value: v as string, text: longDay(v as string, locale) }],
  };
  const breathing = debtJourney(
    db,
    'breathing_space',
    'breathing-space',
    'protect',
    [kindStep('breathing_space', BREATHING_SPACE_KINDS), startOn, textStep('adviser_reference', 'text', MAX_REFERENCE)],
    async (req, debt, a) => {
      const input = {
        kind: a.kind as (typeof BREATHING_SPACE_KINDS)[number],
        start_on: a.start_on as string,
        adviser_reference: a.adviser_reference as string,
      };
      await declareBreathingSpace(db, req.session.tenantId!, debt.id, input, actor(req));
    },
  );
  const disclose = debtJourney(
    db,
    'disclose',
    'disclose',
    'require-follow-up',
    [kindStep('disclose', VULNERABILITY_KINDS), textStep('details', 'textarea', MAX_DETAILS)],
    async (req, debt, a) => {
      const input = { kind: a.kind as (typeof VULNERABILITY_KINDS)[number], details: a.details as string };
      await discloseVulnerability(db, req.session.tenantId!, debt.id, input, actor(req));
    },
  );
  r.use(journeyRoutes(breathing));
  r.use(journeyRoutes(disclose));
  return r;
}
