/**
 * The providers' callbacks and checkout pages (docs/api.md section 18 "Payments").
 * `POST /callbacks/payments/<provider>` takes the raw body and the provider's signature header
 * (`Local-Signature` or `Stripe-Signature`, `t=…,v1=…`) and records the outcome once per event id.
 * The `local` provider's hosted test checkout: `GET /checkout/local/:ref` shows the card form of the
 * session's own pending payment (or its outcome once settled); `POST` takes a test card number:
 * `4242…` succeeds, `4000 0000 0000 0002` is declined, `4000 0025 0000 3155` shows a confirm step
 * (`POST /checkout/local/:ref/confirm`); the outcome is reported as a signed callback delivered to
 * the same verifier. Another provider's checkout sends the customer back to
 * `GET /checkout/<provider>/:ref`, which shows the payment's status (pending until its webhook).
 */
import express, { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import type { Logger } from '@dms/logger';
import { paymentByReference, recordProviderOutcome, setupByReference } from '@dms/domain/portal';
import { CallbackRejected, TEST_CARDS, cardBehaviour, localSavedMethod, type LocalProvider, type PaymentProvider } from '@dms/payments';
import { render } from '../render.js';
import { requireCustomer } from './debts.js';
import { brandFor } from '../brand.js';

/** The test card that needs the customer to authenticate (the only one reaching the confirm step). */
const AUTHENTICATE_CARD = Object.keys(TEST_CARDS).find((digits) => TEST_CARDS[digits] === 'authenticate')!;

/** Header carrying the local provider's callback signature. */
export const SIGNATURE_HEADER = 'local-signature';

/** The header carrying each provider's callback signature. */
const SIGNATURE_HEADERS: Record<string, string> = { local: SIGNATURE_HEADER, stripe: 'stripe-signature' };

/**
 * Verifies and records one callback of `provider`.
 * @returns the HTTP status to answer: 200 recorded, duplicate or ignored (a verified event without an outcome), 400 refused signature or body, 404 unknown payment
 */
export async function receiveCallback(
  db: Knex,
  provider: PaymentProvider,
  body: string,
  signature: string | undefined,
): Promise<{ status: number; result: string }> {
  let outcome;
  try {
    outcome = await provider.verifyCallback(body, signature);
  } catch (err) {
    if (err instanceof CallbackRejected) return { status: 400, result: 'rejected' };
    throw err;
  }
  if (!outcome) return { status: 200, result: 'ignored' };
  const result = await recordProviderOutcome(db, provider.name, outcome);
  return { status: result === 'unknown' ? 404 : 200, result };
}

/** `POST /callbacks/payments/<provider name>`: mounted before sessions, CSRF and the form parser (the signature covers the raw body). */
export function callbackRoutes(db: Knex, provider: PaymentProvider, log: Logger): Router {
  const r = Router();
  const header = SIGNATURE_HEADERS[provider.name] ?? `${provider.name}-signature`;
  r.post(`/callbacks/payments/${provider.name}`, express.text({ type: () => true, limit: '64kb' }), async (req, res) => {
    const body = typeof req.body === 'string' ? req.body : '';
    const { status, result } = await receiveCallback(db, provider, body, req.get(header));
    if (status !== 200) log.warn({ result }, 'payment callback refused');
    res.status(status).json({ result });
  });
  return r;
}

/** The session's own payment of `provider` with checkout `req.params.ref`, or undefined (404: nothing shown); its debt's brand heads the page (brand.ts). */
async function ownPayment(db: Knex, provider: PaymentProvider, req: Request, res: Response) {
  const p = await paymentByReference(db, req.session.tenantId!, provider.name, req.params.ref as string);
  if (!p || p.customer_id !== req.session.customerId) return undefined;
  await brandFor(db, req, res, p.debt_id);
  return p;
}

/** The session's own setup (a checkout that only saves the card) of `provider` with checkout `req.params.ref`, or undefined; branded as `ownPayment`. */
async function ownSetup(db: Knex, provider: PaymentProvider, req: Request, res: Response) {
  const s = await setupByReference(db, req.session.tenantId!, provider.name, req.params.ref as string);
  if (!s || s.customer_id !== req.session.customerId) return undefined;
  await brandFor(db, req, res, s.debt_id);
  return s;
}

/** `GET /checkout/<provider>/:ref`: where a hosted checkout sends the customer back; the payment's status (pending until the webhook). */
export function returnRoutes(db: Knex, provider: PaymentProvider): Router {
  const r = Router();
  r.use(`/checkout/${provider.name}`, requireCustomer);
  r.get(`/checkout/${provider.name}/:ref`, async (req, res) => {
    const p = await ownPayment(db, provider, req, res);
    if (p) return render(req, res, 'pay-result', { payment: p });
    // A checkout that only saved the card (a plan's or a promise's): its outcome, or still open until the webhook.
    const s = await ownSetup(db, provider, req, res);
    if (!s) return render(req, res, 'not-found', {}, 404);
    await render(req, res, 'arrange-result', { setup: s });
  });
  return r;
}

/** The hosted checkout pages of the local provider. */
export function checkoutRoutes(db: Knex, provider: LocalProvider): Router {
  const r = Router();
  r.use('/checkout/local', requireCustomer);
  const paymentOf = (req: Request, res: Response) => ownPayment(db, provider, req, res);
  const report = async (req: Request, res: Response, p: NonNullable<Awaited<ReturnType<typeof paymentOf>>>, status: 'succeeded' | 'failed') => {
    const signed = provider.signedOutcome({ status, tenantId: p.tenant_id, debtId: p.debt_id, reference: p.transaction_ref! });
    const delivered = await receiveCallback(db, provider, signed.body, signed.signature);
    if (delivered.status !== 200) throw new Error(`local payment callback answered ${delivered.status}`);
    res.redirect(303, `/checkout/local/${p.transaction_ref!}`);
  };

  const setupOf = (req: Request, res: Response) => ownSetup(db, provider, req, res);
  /** Reports a setup's outcome: a card that is saved (`4242`, `0341`) succeeds with its saved method. */
  const reportSetup = async (req: Request, res: Response, s: NonNullable<Awaited<ReturnType<typeof setupOf>>>, digits: string | undefined) => {
    const saved = digits ? localSavedMethod(digits) : undefined;
    const outcome = { status: saved ? ('succeeded' as const) : ('failed' as const), tenantId: s.tenant_id, debtId: s.debt_id, reference: s.checkout_reference };
    const signed = provider.signedOutcome({ ...outcome, ...(saved ? { savedMethod: saved } : {}) });
    const delivered = await receiveCallback(db, provider, signed.body, signed.signature);
    if (delivered.status !== 200) throw new Error(`local setup callback answered ${delivered.status}`);
    res.redirect(303, `/checkout/local/${s.checkout_reference}`);
  };
  const digitsOf = (given: unknown) => (typeof given === 'string' ? given.slice(0, 40).replace(/[\s-]/g, '') : '');

  r.get('/checkout/local/:ref', async (req, res, next) => {
    const p = await paymentOf(req, res);
    if (!p) return next();
    if (p.status === 'pending') return render(req, res, 'checkout-local', { ref: req.params.ref, payment: p });
    await render(req, res, 'pay-result', { payment: p });
  });

  r.post('/checkout/local/:ref', async (req, res, next) => {
    const p = await paymentOf(req, res);
    if (!p) return next();
    if (p.status !== 'pending') return res.redirect(303, `/checkout/local/${req.params.ref}`);
    const behaviour = cardBehaviour(typeof req.body?.card_number === 'string' ? (req.body.card_number as string).slice(0, 40) : '');
    if (!behaviour)
      return render(req, res, 'checkout-local', { ref: req.params.ref, payment: p, errors: [{ field: 'card_number', message: 'pay:card.invalid' }] }, 400);
    if (behaviour === 'authenticate') return render(req, res, 'checkout-confirm', { ref: req.params.ref, payment: p });
    await report(req, res, p, behaviour === 'succeeds' || behaviour === 'later_declined' ? 'succeeded' : 'failed');
  });

  r.post('/checkout/local/:ref/confirm', async (req, res, next) => {
    const p = await paymentOf(req, res);
    if (!p) return next();
    if (p.status !== 'pending') return res.redirect(303, `/checkout/local/${req.params.ref}`);
    await report(req, res, p, req.body?.decision === 'complete' ? 'succeeded' : 'failed');
  });

  // Checkouts that only save the card (a plan's or a promise's, routes/offers.ts): nothing is charged.
  r.get('/checkout/local/:ref', async (req, res) => {
    const s = await setupOf(req, res);
    if (!s) return render(req, res, 'not-found', {}, 404);
    if (s.status === 'open') return render(req, res, 'checkout-local', { ref: req.params.ref, payment: s, saving: true });
    await render(req, res, 'arrange-result', { setup: s });
  });

  r.post('/checkout/local/:ref', async (req, res) => {
    const s = await setupOf(req, res);
    if (!s) return render(req, res, 'not-found', {}, 404);
    if (s.status !== 'open') return res.redirect(303, `/checkout/local/${req.params.ref}`);
    const digits = digitsOf(req.body?.card_number);
    const behaviour = cardBehaviour(digits);
    if (!behaviour)
      return render(
        req,
        res,
        'checkout-local',
        { ref: req.params.ref, payment: s, saving: true, errors: [{ field: 'card_number', message: 'pay:card.invalid' }] },
        400,
      );
    if (behaviour === 'authenticate') return render(req, res, 'checkout-confirm', { ref: req.params.ref, payment: s });
    await reportSetup(req, res, s, behaviour === 'succeeds' || behaviour === 'later_declined' ? digits : undefined);
  });

  r.post('/checkout/local/:ref/confirm', async (req, res) => {
    const s = await setupOf(req, res);
    if (!s) return render(req, res, 'not-found', {}, 404);
    if (s.status !== 'open') return res.redirect(303, `/checkout/local/${req.params.ref}`);
    // Only the card that asks to authenticate reaches the confirm step.
    await reportSetup(req, res, s, req.body?.decision === 'complete' ? AUTHENTICATE_CARD : undefined);
  });
  return r;
}
