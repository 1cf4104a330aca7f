/**
 * Proposing a plan from the portal (docs/api.md section 18 "Proposals"): the terms
 * (`GET|POST /debts/:id/propose`: amount per instalment, frequency, first payment date); terms
 * within the policy are sent to the offers (`/debts/:id/offers`); otherwise, without a statement
 * yet, to the income and expenditure journey (`/debts/:id/statement?return=propose`); then check
 * your answers (`GET|POST /debts/:id/propose/check`, which records the proposal and moves the debt
 * to `assessing`) and `GET /debts/:id/propose/sent`. Only the session's own debts; another's is 404.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { FREQUENCIES } from '@dms/domain/payment-plans';
import { createProposal, proposeContext, withinPolicy, type ProposeContext } from '@dms/domain/proposals';
import { render } from '../render.js';
import { requireCustomer } from './debts.js';
import { parseAmount } from './pay.js';

type Draft = { debtId: string; amount: number; display: string; frequency: string; start_on: string };
type FieldError = { field: string; message: string };

/** The problems of the answers as typed (pure): each field named, with its catalogue key. */
export function proposeErrors(amount: number | undefined, frequency: unknown, startOn: unknown, today: string): FieldError[] {
  const errors: FieldError[] = [];
  if (amount === undefined || amount < 1) errors.push({ field: 'amount', message: 'propose:amount.missing' });
  if (!FREQUENCIES.includes(frequency as never)) errors.push({ field: 'frequency', message: 'propose:frequency.missing' });
  const valid = typeof startOn === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(startOn) && new Date(`${startOn}T00:00:00Z`).toISOString().startsWith(startOn);
  if (!valid) errors.push({ field: 'start_on', message: 'propose:start_on.missing' });
  else if (startOn < today) errors.push({ field: 'start_on', message: 'propose:start_on.past' });
  return errors;
}

/** The propose routes over `db`. */
export function proposeRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts/:id/propose', requireCustomer);
  const context = (req: Request) => proposeContext(db, req.session.tenantId!, req.session.customerId!, req.params.id as string);
  const draftOf = (req: Request): Draft | undefined => (req.session.proposeDraft?.debtId === req.params.id ? req.session.proposeDraft : undefined);
  const form = (req: Request, res: Response, c: ProposeContext, values: Record<string, unknown>, status = 200) =>
    render(req, res, 'propose-form', { debtId: req.params.id, currency: c.currency, frequencies: FREQUENCIES, ...values }, status);
  const statementPath = (id: string) => `/debts/${id}/statement?return=propose`;

  r.get('/debts/:id/propose', async (req, res) => {
    const c = await context(req);
    if (!c) return render(req, res, 'not-found', {}, 404);
    const d = draftOf(req);
    await form(req, res, c, { amount: d?.display ?? '', frequency: d?.frequency ?? '', start_on: d?.start_on ?? '' });
  });

  r.post('/debts/:id/propose', async (req, res) => {
    const c = await context(req);
    if (!c) return render(req, res, 'not-found', {}, 404);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const display = typeof body.amount === 'string' ? body.amount.slice(0, 30) : '';
    const startOn = typeof body.start_on === 'string' ? body.start_on.trim().slice(0, 10) : '';
    const amount = parseAmount(display, c.currency);
    const errors = proposeErrors(amount, body.frequency, startOn, new Date().toISOString().slice(0, 10));
    if (errors.length) return form(req, res, c, { amount: display, frequency: body.frequency, start_on: startOn, errors }, 400);
    if (withinPolicy(c.balance, amount!, c.policy)) return res.redirect(303, `/debts/${req.params.id}/offers`);
    req.session.proposeDraft = { debtId: req.params.id, amount: amount!, display, frequency: body.frequency as string, start_on: startOn };
    res.redirect(303, c.statementId ? `/debts/${req.params.id}/propose/check` : statementPath(req.params.id));
  });

  r.get('/debts/:id/propose/check', async (req, res) => {
    const c = await context(req);
    if (!c) return render(req, res, 'not-found', {}, 404);
    const d = draftOf(req);
    if (!d) return res.redirect(303, `/debts/${req.params.id}/propose`);
    if (!c.statementId) return res.redirect(303, statementPath(d.debtId));
    await render(req, res, 'propose-check', { debtId: d.debtId, draft: d, currency: c.currency, count: Math.ceil(c.balance / d.amount) });
  });

  r.post('/debts/:id/propose/check', async (req, res) => {
    const c = await context(req);
    if (!c) return render(req, res, 'not-found', {}, 404);
    const d = draftOf(req);
    if (!d) return res.redirect(303, `/debts/${req.params.id}/propose`);
    if (!c.statementId) return res.redirect(303, statementPath(d.debtId));
    const terms = { instalment_amount: d.amount, frequency: d.frequency, start_on: d.start_on, income_and_expenditure: c.statementId };
    try {
      await createProposal(db, req.session.tenantId!, d.debtId, terms, `customer:${req.session.customerId}`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 404) throw err;
      // The debt cannot be assessed now (409), or the terms no longer fit (422, the field named).
      const field = err.param === 'start_on' ? 'start_on' : 'amount';
      const message = err.status === 409 ? 'propose:refused' : `propose:${field}.invalid`;
      return form(req, res, c, { amount: d.display, frequency: d.frequency, start_on: d.start_on, errors: [{ field, message }] }, err.status);
    }
    delete req.session.proposeDraft;
    res.redirect(303, `/debts/${d.debtId}/propose/sent`);
  });

  r.get('/debts/:id/propose/sent', async (req, res) => {
    const c = await context(req);
    if (!c) return render(req, res, 'not-found', {}, 404);
    await render(req, res, 'propose-sent', { debtId: req.params.id });
  });
  return r;
}
