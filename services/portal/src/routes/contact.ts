/**
 * Dispute or ask a question (docs/api.md section 18), for a verified session
 * on its own debt (another's is 404): `GET|POST /debts/:id/{dispute|question}` (a reason from the
 * list and free text up to 2,000 characters; a bad answer is 400 naming the field, nothing kept),
 * `GET|POST /debts/:id/{kind}/check` (check your answers, then `customerContact`: an inbound
 * `portal` communication and the debt `disputed` or `queried` in one transaction), and
 * `GET /debts/:id/{kind}/sent`. A status that does not allow it is a 409 page.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import {
  CONTACT_KINDS,
  CONTACT_REASONS,
  MAX_CONTACT_TEXT,
  canContact,
  contactErrors,
  customerContact,
  customerDebt,
  type ContactKind,
} from '@dms/domain/portal';
import { render } from '../render.js';
import { requireCustomer } from './debts.js';

/** The form's answers as posted (strings only; a longer text is kept so the error can name it). */
function answersOf(req: Request, kind: ContactKind) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return { kind, reason: str(body.reason), text: str(body.text).slice(0, MAX_CONTACT_TEXT + 1) };
}

/** The contact routes over `db`. */
export function contactRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts', requireCustomer);

  /** The session's own debt `:id` open to `kind`, or a 404 / 409 page already sent. */
  async function ownDebt(req: Request, res: Response, kind: ContactKind) {
    const view = await customerDebt(db, req.session.tenantId!, req.session.customerId!, req.params.id as string);
    if (!view) return void (await render(req, res, 'not-found', {}, 404));
    if (!canContact(view.debt.status, kind)) return void (await render(req, res, 'contact-refused', { creditor: view.debt.creditor }, 409));
    return view.debt;
  }

  for (const kind of CONTACT_KINDS) {
    const values = (debt: { id: string; creditor: string }) => ({ kind, debt, creditor: debt.creditor, reasons: CONTACT_REASONS[kind] });

    r.get(`/debts/:id/${kind}`, async (req, res) => {
      const debt = await ownDebt(req, res, kind);
      if (!debt) return;
      const draft = req.session.contactDraft?.debtId === debt.id && req.session.contactDraft.kind === kind ? req.session.contactDraft : undefined;
      await render(req, res, 'contact-form', { ...values(debt), answers: draft ?? {} });
    });

    r.post(`/debts/:id/${kind}`, async (req, res) => {
      const debt = await ownDebt(req, res, kind);
      if (!debt) return;
      const answers = answersOf(req, kind);
      const errors = contactErrors(answers);
      if (errors.length > 0) return render(req, res, 'contact-form', { ...values(debt), answers, errors }, 400);
      req.session.contactDraft = { debtId: debt.id, ...answers };
      res.redirect(303, `/debts/${debt.id}/${kind}/check`);
    });

    r.get(`/debts/:id/${kind}/check`, async (req, res) => {
      const debt = await ownDebt(req, res, kind);
      if (!debt) return;
      const draft = req.session.contactDraft;
      if (draft?.debtId !== debt.id || draft.kind !== kind) return res.redirect(303, `/debts/${debt.id}/${kind}`);
      await render(req, res, 'contact-check', { ...values(debt), answers: draft });
    });

    r.post(`/debts/:id/${kind}/check`, async (req, res) => {
      const debt = await ownDebt(req, res, kind);
      if (!debt) return;
      const draft = req.session.contactDraft;
      if (draft?.debtId !== debt.id || draft.kind !== kind) return res.redirect(303, `/debts/${debt.id}/${kind}`);
      try {
        await customerContact(db, req.session.tenantId!, req.session.customerId!, debt.id, draft);
      } catch (e) {
        if (e instanceof ApiError && e.code === 'invalid_state_transition') return render(req, res, 'contact-refused', { creditor: debt.creditor }, 409);
        throw e;
      }
      delete req.session.contactDraft;
      res.redirect(303, `/debts/${debt.id}/${kind}/sent`);
    });

    r.get(`/debts/:id/${kind}/sent`, async (req, res) => {
      const view = await customerDebt(db, req.session.tenantId!, req.session.customerId!, req.params.id);
      if (!view) return render(req, res, 'not-found', {}, 404);
      await render(req, res, 'contact-sent', values(view.debt));
    });
  }
  return r;
}
