/**
 * The income and expenditure journey of the portal (docs/api.md section 18 "Income and
 * expenditure"): `GET /debts/:id/statement[?return=offers|propose]` starts it, one page per group
 * (`/debts/:id/statement/<household|income|fixed-costs|flexible-costs|debts>`, each amount with
 * its frequency), check your answers (`/statement/check`, monthly conversion shown), then the
 * statement is stored with the tenant API's own `createIncomeAndExpenditure` (whodunnit
 * `customer:<id>`, with its `income_and_expenditure.created` event) and `/statement/done` shows
 * the disposable income. Answers live in `req.session.statement`; only the session's own debts
 * (another's is 404); bad input is 400 with every field named and nothing kept.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { ENTRY_FREQUENCIES, HOUSEHOLD_FIELDS, createIncomeAndExpenditure, toMonthly, type StatementGroup } from '@dms/domain/income-and-expenditure';
import { payBounds } from '@dms/domain/portal';
import { render, type FieldError } from '../render.js';
import { STEPS, entryFields, isStep, nextStep, readEntries, readHousehold, returnPath, statementInput, type Step } from '../statement-form.js';
import { requireCustomer } from './debts.js';

/**
 * Starts (or restarts) the journey for `debtId` in this session and returns its first page's
 * path; `ret` (`offers`, `propose`, else the debt page) is where the confirmation page leads.
 */
export function startStatement(req: Request, debtId: string, ret?: unknown): string {
  req.session.statement = { debtId, returnTo: returnPath(debtId, ret), entries: {}, typed: {} };
  return `/debts/${encodeURIComponent(debtId)}/statement/household`;
}

/** The statement routes over `db`. */
export function statementRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts/:id/statement', requireCustomer);
  const currencyOf = async (req: Request) => (await payBounds(db, req.session.tenantId!, req.session.customerId!, req.params.id as string))?.currency;
  const draftOf = (req: Request) => (req.session.statement?.debtId === req.params.id ? req.session.statement : undefined);

  const stepPage = (req: Request, res: Response, step: Step, currency: string, typed: Record<string, string>, errors?: FieldError[]) => {
    const groups = STEPS[step].map((g: StatementGroup) => ({ name: g, fields: entryFields(g) }));
    const view = step === 'household' ? 'statement-household' : 'statement-group';
    return render(
      req,
      res,
      view,
      { debtId: req.params.id, step, groups, currency, typed, frequencies: ENTRY_FREQUENCIES, fields: Object.keys(HOUSEHOLD_FIELDS), errors },
      errors ? 400 : 200,
    );
  };

  r.get('/debts/:id/statement', async (req, res) => {
    if (!(await currencyOf(req))) return render(req, res, 'not-found', {}, 404);
    res.redirect(303, startStatement(req, req.params.id, req.query.return));
  });

  r.get('/debts/:id/statement/check', async (req, res) => {
    const currency = await currencyOf(req);
    if (!currency) return render(req, res, 'not-found', {}, 404);
    const draft = draftOf(req);
    const input = draft && statementInput(draft);
    if (!draft || !input) return res.redirect(303, `/debts/${req.params.id}/statement`);
    const rows = (Object.keys(STEPS) as Step[]).slice(1).map((step) => ({
      step,
      groups: STEPS[step].map((g: StatementGroup) => ({
        name: g,
        entries: entryFields(g).map((f) => ({ ...f, ...draft.entries[f.key]!, monthly: toMonthly(draft.entries[f.key]!) })),
      })),
    }));
    await render(req, res, 'statement-check', { debtId: req.params.id, currency, household: draft.household, fields: Object.keys(HOUSEHOLD_FIELDS), rows });
  });

  r.post('/debts/:id/statement/check', async (req, res) => {
    if (!(await currencyOf(req))) return render(req, res, 'not-found', {}, 404);
    const draft = draftOf(req);
    const input = draft && statementInput(draft);
    if (!draft || !input) return res.redirect(303, `/debts/${req.params.id}/statement`);
    const customerId = req.session.customerId!;
    const stored = await createIncomeAndExpenditure(db, req.session.tenantId!, req.params.id, input, `customer:${customerId}`);
    delete req.session.statement;
    req.session.statementDone = {
      debtId: req.params.id,
      id: stored.id,
      disposable: stored.disposable_income,
      currency: stored.currency,
      returnTo: draft.returnTo,
    };
    res.redirect(303, `/debts/${req.params.id}/statement/done`);
  });

  r.get('/debts/:id/statement/done', async (req, res) => {
    if (!(await currencyOf(req))) return render(req, res, 'not-found', {}, 404);
    const done = req.session.statementDone;
    if (done?.debtId !== req.params.id) return res.redirect(303, `/debts/${req.params.id}`);
    const debtPath = returnPath(req.params.id, 'debt');
    await render(req, res, 'statement-done', { ...done, debtPath, returnTo: done.returnTo === debtPath ? undefined : done.returnTo });
  });

  r.get('/debts/:id/statement/:step', async (req, res) => {
    const currency = await currencyOf(req);
    if (!currency || !isStep(req.params.step)) return render(req, res, 'not-found', {}, 404);
    const draft = draftOf(req);
    if (!draft) return res.redirect(303, `/debts/${req.params.id}/statement`);
    await stepPage(req, res, req.params.step, currency, draft.typed);
  });

  r.post('/debts/:id/statement/:step', async (req, res) => {
    const currency = await currencyOf(req);
    if (!currency || !isStep(req.params.step)) return render(req, res, 'not-found', {}, 404);
    const draft = draftOf(req);
    if (!draft) return res.redirect(303, `/debts/${req.params.id}/statement`);
    const step = req.params.step;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (step === 'household') {
      const { values, typed, errors } = readHousehold(body);
      if (errors.length) return stepPage(req, res, step, currency, typed, errors);
      draft.household = values;
      Object.assign(draft.typed, typed);
    } else {
      const { entries, typed, errors } = readEntries(body, STEPS[step], currency);
      if (errors.length) return stepPage(req, res, step, currency, typed, errors);
      Object.assign(draft.entries, entries);
      Object.assign(draft.typed, typed);
    }
    // Once every page is answered (and after a "change" from check your answers), check them.
    const next = statementInput(draft) ? 'check' : nextStep(step);
    res.redirect(303, `/debts/${req.params.id}/statement/${next}`);
  });
  return r;
}
