/**
 * Paying from the portal (docs/api.md section 18 "Payments"): the amount
 * (`GET|POST /debts/:id/pay`, at least the organisation's minimum, at most the balance), check
 * your answers (`GET|POST /debts/:id/pay/check`, which creates the `pending` payment and sends the
 * customer to the provider's checkout). Only the session's own debts; another's is 404.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { amountProblem, payBounds, startPortalPayment, type PayBounds } from '@dms/domain/portal';
import type { PaymentProvider } from '@dms/payments';
import { fractionDigits, render } from '../render.js';
import { requireCustomer } from './debts.js';

/**
 * The amount typed in major units (`12.50`, or with a decimal comma as French pages suggest:
 * `12,50`, `1 234,50`, `1.234,50`) in minor units; currency signs and spaces (also the no-break
 * spaces `Intl` writes) are ignored, and commas group thousands when a point is the decimal mark
 * (`1,234.50`). Undefined when not an amount.
 */
export function parseAmount(given: unknown, currency: string): number | undefined {
  if (typeof given !== 'string') return undefined;
  const bare = given.replace(/[\s\u00a0\u202f£€$]/g, '');
  const decimalComma = /^(\d+|\d{1,3}(?:\.\d{3})+),(\d{1,2})$/.exec(bare);
  const text = decimalComma ? `${decimalComma[1]!.replace(/\./g, '')}.${decimalComma[2]}` : bare.replace(/,/g, '');
  const digits = fractionDigits(currency);
  const m = new RegExp(`^(\\d{1,12})(?:\\.(\\d{1,${Math.max(digits, 1)}}))?$`).exec(text);
  if (!m || (digits === 0 && m[2])) return undefined;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || 0);
}

/** The pay routes over `db`, paying through `provider`. */
export function payRoutes(db: Knex, provider: PaymentProvider): Router {
  const r = Router();
  r.use('/debts/:id/pay', requireCustomer);
  const bounds = (req: Request) => payBounds(db, req.session.tenantId!, req.session.customerId!, req.params.id as string);
  const amountPage = (req: Request, res: Response, b: PayBounds, values: Record<string, unknown> = {}, status = 200) =>
    render(req, res, 'pay-amount', { debtId: req.params.id, bounds: b, ...values }, status);

  r.get('/debts/:id/pay', async (req, res) => {
    const b = await bounds(req);
    if (!b) return render(req, res, 'not-found', {}, 404);
    if (b.max === 0) return amountPage(req, res, b, { nothingDue: true });
    await amountPage(req, res, b, { value: req.session.pay?.debtId === req.params.id ? req.session.pay.display : '' });
  });

  r.post('/debts/:id/pay', async (req, res) => {
    const b = await bounds(req);
    if (!b) return render(req, res, 'not-found', {}, 404);
    if (b.max === 0) return amountPage(req, res, b, { nothingDue: true }, 409);
    const display = typeof req.body?.amount === 'string' ? (req.body.amount as string).slice(0, 30) : '';
    const amount = parseAmount(display, b.currency);
    const problem = amountProblem(amount, b);
    if (problem) return amountPage(req, res, b, { value: display, errors: [{ field: 'amount', message: `pay:amount.${problem}` }] }, 400);
    req.session.pay = { debtId: req.params.id, amount: amount!, display };
    res.redirect(303, `/debts/${req.params.id}/pay/check`);
  });

  r.get('/debts/:id/pay/check', async (req, res) => {
    const b = await bounds(req);
    if (!b) return render(req, res, 'not-found', {}, 404);
    const pay = req.session.pay;
    if (pay?.debtId !== req.params.id) return res.redirect(303, `/debts/${req.params.id}/pay`);
    await render(req, res, 'pay-check', { debtId: req.params.id, amount: pay.amount, currency: b.currency, full: pay.amount === b.max });
  });

  r.post('/debts/:id/pay/check', async (req, res) => {
    const b = await bounds(req);
    if (!b) return render(req, res, 'not-found', {}, 404);
    const pay = req.session.pay;
    if (pay?.debtId !== req.params.id) return res.redirect(303, `/debts/${req.params.id}/pay`);
    // The balance may have moved since the amount was chosen: check it again.
    const problem = amountProblem(pay.amount, b);
    if (problem) return amountPage(req, res, b, { value: pay.display, errors: [{ field: 'amount', message: `pay:amount.${problem}` }] }, 400);
    const tenantId = req.session.tenantId!;
    const checkout = await provider.createCheckout({ tenantId, debtId: pay.debtId, amount: pay.amount, currency: b.currency });
    try {
      await startPortalPayment(db, {
        tenantId,
        customerId: req.session.customerId!,
        debtId: pay.debtId,
        amount: pay.amount,
        currency: b.currency,
        provider: provider.name,
        reference: checkout.reference,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Another payment is pending (422 amount) or the debt no longer takes payments (409).
      const message = err.code === 'business_rule_violation' ? 'pay:amount.pending' : 'pay:amount.closed';
      return amountPage(req, res, b, { value: pay.display, errors: [{ field: 'amount', message }] }, err.status);
    }
    delete req.session.pay;
    res.redirect(303, checkout.url);
  });
  return r;
}
