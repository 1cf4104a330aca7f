/**
 * The customer's payment plan in the portal (docs/api.md section 18, "Time to pay"), for a verified
 * session on its own debt (another's is the 404 page): `GET /debts/:id/plan` (the plan and its
 * upcoming instalments; a read recorded in the access log), then two journeys of steps.ts:
 * `/debts/:id/plan/delay` (a date 1 to 14 days after the next instalment → check → done:
 * `delayNextInstalment`) and `/debts/:id/plan/day` (a new date for the next instalment, the later
 * ones following → check → done: `changeInstalmentDay`), each with `whodunnit` `customer:<id>`
 * and `payment_plan.updated`. Each is offered once per instalment; without an active plan, or once
 * used, the journey is a 409 page saying so. The payment authority's own journey (cancelling it)
 * belongs beside these, its link in the marked place of views/plan.liquid.
 */
import { Router, type Request } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { changeInstalmentDay, delayNextInstalment } from '@dms/domain/debts';
import { customerDebt, customerPlan, type PortalPlan } from '@dms/domain/portal';
import { money, render } from '../render.js';
import { chosen, journeyRoutes, type Choice, type Journey } from '../steps.js';
import { logRead, requireCustomer } from './debts.js';
import { longDay } from '../days.js';

/** A plan journey's context: the debt as the customer sees it and its plan. */
interface PlanContext extends PortalPlan {
  debt: { id: string; creditor: string; currency: string };
}

/** Days from `from` to `to` (both `YYYY-MM-DD`). */
function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
}

/** The session's own debt `:id` and its plan, or undefined when the debt is not theirs. */
async function loadPlan(db: Knex, req: Request): Promise<PlanContext | undefined> {
  const view = await customerDebt(db, req.session.tenantId!, req.session.customerId!, req.params.id as string);
  if (!view) return undefined;
  return { debt: view.debt, ...(await customerPlan(db, req.session.tenantId!, view.debt.id)) };
}

const dateChoices = (dates: readonly string[], locale: string): Choice[] => dates.map((d) => ({ value: d, text: longDay(d, locale) }));
const actor = (req: Request) => `customer:${req.session.customerId!}`;

/** The journey `which` (`delay` or `day`) over `db`. */
function timeToPay(db: Knex, which: 'delay' | 'day'): Journey<PlanContext> {
  const offered = (ctx: PlanContext) => (which === 'delay' ? ctx.delayDates : ctx.dayDates);
  const field = which === 'delay' ? 'due_on' : 'next_due_on';
  return {
    ns: 'plan',
    id: which,
    route: `/debts/:id/plan/${which}`,
    base: (req) => `/debts/${req.params.id as string}/plan/${which}`,
    back: (req) => `/debts/${req.params.id as string}/plan`,
    load: (req) => loadPlan(db, req),
    refusal: (ctx) => (!ctx.plan || !ctx.next ? 'plan:none' : offered(ctx).length === 0 ? `plan:${which}.used` : undefined),
    steps: [
      {
        name: field,
        kind: 'radios',
        choices: (ctx, locale) => dateChoices(offered(ctx), locale),
        read: chosen(field, 'choose', offered),
        shown: (value, _ctx, locale) => [{ value: value as string, text: longDay(value as string, locale) }],
      },
    ],
    submit: async (req, ctx, answers) => {
      const date = answers[field] as string;
      // The plan may have moved since the date was chosen (another tab): the date must still be on offer.
      if (!offered(ctx).includes(date)) throw new ApiError('business_rule_violation', `${field} is no longer on offer.`, { param: field });
      if (which === 'delay') await delayNextInstalment(db, req.session.tenantId!, ctx.plan!.id, daysFrom(ctx.next!.due_on, date), actor(req));
      else await changeInstalmentDay(db, req.session.tenantId!, ctx.plan!.id, date, actor(req));
    },
    done: (ctx, locale) => ({ date: ctx.next ? longDay(ctx.next.due_on, locale) : '' }),
    hints: (ctx, locale) => ({ date: longDay(ctx.next!.due_on, locale), amount: money(ctx.next!.amount - ctx.next!.amount_paid, ctx.debt.currency, locale) }),
    creditor: (ctx) => ctx.debt.creditor,
  };
}

/** The plan routes over `db`. */
export function planRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts/:id/plan', requireCustomer);
  r.get('/debts/:id/plan', async (req, res) => {
    const ctx = await loadPlan(db, req);
    if (!ctx) return render(req, res, 'not-found', {}, 404);
    await logRead(db, req, 'portal:plan');
    const upcoming = ctx.plan?.schedule.filter((i) => i.status !== 'paid') ?? [];
    await render(req, res, 'plan', { ...ctx, upcoming, creditor: ctx.debt.creditor });
  });
  r.use(journeyRoutes(timeToPay(db, 'delay')));
  r.use(journeyRoutes(timeToPay(db, 'day')));
  return r;
}
