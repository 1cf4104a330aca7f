/**
 * Offers, plans with a saved card and pay later (docs/api.md section 18): `GET /debts/:id/offers`
 * lists what the options allow; `POST` takes the choice (a plan's id or `pay_later`), then
 * `GET|POST /debts/:id/offers/date` the first payment or pay-later date (today to today + 30
 * days), then `GET|POST /debts/:id/offers/check` checks the answers and opens the provider's
 * checkout with `saveMethod` (nothing charged there: the worker charges on each date). The plan or
 * promise is made when the provider's verified outcome arrives (arrangements.ts). A choice the
 * options or the debt's status do not allow is refused with a page saying so (403); another's debt is 404.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { debtOffers, findPlanOffer, startSetup, withinWindow, type DebtOffers, type SetupTerms } from '@dms/domain/portal';
import type { PaymentProvider } from '@dms/payments';
import { render } from '../render.js';
import { requireCustomer } from './debts.js';

/** What `choice` is among `o`'s offers: the plan, pay later, or undefined when not offered. */
function chosen(o: DebtOffers, choice: string | undefined) {
  if (choice === 'pay_later') return o.canPay ? o.offers.find((x) => x.type === 'pay_later') : undefined;
  return o.canPlan ? findPlanOffer(o.offers, choice) : undefined;
}

/** The offers routes over `db`, saving methods through `provider`. */
export function offersRoutes(db: Knex, provider: PaymentProvider): Router {
  const r = Router();
  r.use('/debts/:id/offers', requireCustomer);
  const load = (req: Request) => debtOffers(db, req.session.tenantId!, req.session.customerId!, req.params.id as string);
  const draft = (req: Request) => (req.session.arrange?.debtId === req.params.id ? req.session.arrange : undefined);
  const listPage = (req: Request, res: Response, o: DebtOffers, values: Record<string, unknown> = {}, status = 200) => {
    const plans = o.canPlan ? o.offers.filter((x) => x.type === 'plan') : [];
    const later = o.canPay ? o.offers.find((x) => x.type === 'pay_later') : undefined;
    const settlement = o.offers.find((x) => x.type === 'settlement');
    return render(req, res, 'offers', { debtId: o.debtId, currency: o.currency, balance: o.balance, plans, later, settlement, ...values }, status);
  };
  const refused = (req: Request, res: Response) => render(req, res, 'offers-refused', { debtId: req.params.id }, 403);

  r.get('/debts/:id/offers', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    await listPage(req, res, o, { value: draft(req)?.choice });
  });

  r.post('/debts/:id/offers', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    const choice = typeof req.body?.choice === 'string' ? (req.body.choice as string).slice(0, 40) : undefined;
    if (!choice) return listPage(req, res, o, { errors: [{ field: 'choice', message: 'offers:choose.missing' }] }, 400);
    if (!chosen(o, choice)) return refused(req, res);
    req.session.arrange = { debtId: o.debtId, choice };
    res.redirect(303, `/debts/${o.debtId}/offers/date`);
  });

  const datePage = (req: Request, res: Response, o: DebtOffers, values: Record<string, unknown> = {}, status = 200) =>
    render(req, res, 'offers-date', { debtId: o.debtId, later: draft(req)!.choice === 'pay_later', today: o.today, ...values }, status);

  r.get('/debts/:id/offers/date', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    if (!draft(req)) return res.redirect(303, `/debts/${o.debtId}/offers`);
    await datePage(req, res, o, { value: draft(req)!.date ?? '' });
  });

  r.post('/debts/:id/offers/date', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    const d = draft(req);
    if (!d) return res.redirect(303, `/debts/${o.debtId}/offers`);
    const given = typeof req.body?.date === 'string' ? (req.body.date as string).trim().slice(0, 10) : '';
    if (!withinWindow(given, o.today)) return datePage(req, res, o, { value: given, errors: [{ field: 'date', message: 'offers:date.invalid' }] }, 400);
    req.session.arrange = { ...d, date: given };
    res.redirect(303, `/debts/${o.debtId}/offers/check`);
  });

  /** The checked choice of the session: the offer, its date, and what the first charge will be. */
  const checked = (req: Request, o: DebtOffers) => {
    const d = draft(req);
    const offer = chosen(o, d?.choice);
    if (!d || !offer || !withinWindow(d.date, o.today)) return undefined;
    const first = offer.type === 'plan' ? offer.amounts[0]! : o.balance;
    return { d: d as typeof d & { date: string }, offer, first };
  };

  r.get('/debts/:id/offers/check', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    const c = checked(req, o);
    if (!c) return res.redirect(303, `/debts/${o.debtId}/offers`);
    await render(req, res, 'offers-check', { debtId: o.debtId, currency: o.currency, offer: c.offer, date: c.d.date, first: c.first });
  });

  r.post('/debts/:id/offers/check', async (req, res) => {
    const o = await load(req);
    if (!o) return render(req, res, 'not-found', {}, 404);
    // The options, balance or status may have moved since the choice: it is checked again.
    if (draft(req) && !chosen(o, draft(req)!.choice)) return refused(req, res);
    const c = checked(req, o);
    if (!c) return res.redirect(303, `/debts/${o.debtId}/offers`);
    const tenantId = req.session.tenantId!;
    const terms: SetupTerms =
      c.offer.type === 'plan'
        ? { kind: 'plan', frequency: c.offer.frequency, instalment_count: c.offer.instalment_count, start_on: c.d.date }
        : { kind: 'promise', pay_on: c.d.date };
    const checkout = await provider.createCheckout({ tenantId, debtId: o.debtId, amount: c.first, currency: o.currency, saveMethod: true, setupOnly: true });
    await startSetup(db, {
      tenantId,
      customerId: req.session.customerId!,
      debtId: o.debtId,
      terms,
      amount: c.offer.type === 'plan' ? c.first : o.balance,
      currency: o.currency,
      provider: provider.name,
      reference: checkout.reference,
    });
    delete req.session.arrange;
    res.redirect(303, checkout.url);
  });
  return r;
}
