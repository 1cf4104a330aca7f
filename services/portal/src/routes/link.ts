/**
 * Getting in (docs/api.md section 18): `GET /l/:token` finds the link by its hash and moves it into
 * the session (then redirects to `/verify`, so the token leaves the address bar); `GET|POST
 * /verify` asks for the organisation's fact; success regenerates the session id and lands on the
 * debt page opened before (`returnTo`, when it is this customer's), the link's debt, or the debts. `POST /sign-out`
 * ends the session. Expired or revoked links are 410, unknown ones 404, showing nothing of a debt.
 */
import { Router, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import {
  DEBT_PAGE_PATH,
  customerLanguage,
  debtPagePath,
  findPortalLink,
  isCustomerDebt,
  linkState,
  portalSettings,
  verificationFact,
  verifyAnswer,
  type PortalLinkRow,
} from '@dms/domain/portal';
import { matchLanguage } from '../i18n.js';
import { render } from '../render.js';

/** The verify_with, brand name and logo URL (or null) of the organisation behind a link (its debt's, else the customer's latest debt's). */
async function verifyKind(db: Knex, link: PortalLinkRow) {
  const org = await db('debts as d')
    .join('organisations as o', 'o.id', 'd.organisation_id')
    .where({ 'd.tenant_id': link.tenant_id, 'd.customer_id': link.customer_id })
    .modify((q) => void (link.debt_id && q.where('d.id', link.debt_id)))
    .orderBy('d.created_at', 'desc')
    .first('o.configurations', 'o.logo', db.raw('coalesce(o.customer_facing_name, o.name) AS creditor'));
  return {
    kind: portalSettings(org?.configurations).verify_with,
    creditor: (org?.creditor as string | undefined) ?? '',
    logo: (org?.logo as string | null | undefined) ?? null,
  };
}

/**
 * Gives the session a new id (no fixation: the id before verification is not the one after); the
 * chosen language stays, and so does the debt page to return to unless `keepReturn` is false.
 */
function newSessionId(req: Request, keepReturn = true): Promise<void> {
  const { lang, returnTo } = req.session;
  return new Promise<void>((ok, fail) =>
    req.session.regenerate((e: unknown) => {
      if (e) return fail(e instanceof Error ? e : new Error('session regenerate failed'));
      if (lang) req.session.lang = lang;
      if (keepReturn && returnTo) req.session.returnTo = returnTo;
      ok();
    }),
  );
}

/**
 * Where a verified customer goes: the debt page they opened before verifying (`returnTo`, kept
 * only if it is a `/debts/<deb_id>` path of one of this customer's debts with this tenant), else
 * the link's debt, else their debts.
 */
async function landing(db: Knex, link: PortalLinkRow, returnTo: string | undefined): Promise<string> {
  const debtId = returnTo && DEBT_PAGE_PATH.test(returnTo) ? returnTo.slice('/debts/'.length) : undefined;
  if (debtId && (await isCustomerDebt(db, link.tenant_id, link.customer_id, debtId))) return debtPagePath(debtId);
  return link.debt_id ? debtPagePath(link.debt_id) : '/debts';
}

/** The link routes over `db`. */
export function linkRoutes(db: Knex): Router {
  const r = Router();

  r.get('/l/:token', async (req, res) => {
    const found = await findPortalLink(db, req.params.token);
    if (found.state === 'unknown') return render(req, res, 'link-unknown', {}, 404);
    if (found.state === 'gone') return render(req, res, 'link-gone', {}, 410);
    await newSessionId(req);
    req.session.pendingLinkId = found.link.id;
    res.redirect(303, '/verify');
  });

  async function pending(req: Request, res: Response): Promise<PortalLinkRow | undefined> {
    const id = req.session.pendingLinkId;
    const row = id ? ((await db('portal_links').where({ id }).first()) as PortalLinkRow | undefined) : undefined;
    const state = row ? linkState(row) : { state: 'unknown' as const };
    if (state.state === 'ok' || state.state === 'locked') {
      if (state.state === 'locked') {
        await render(req, res, 'locked', {}, 429);
        return undefined;
      }
      return state.link;
    }
    await render(req, res, state.state === 'gone' ? 'link-gone' : 'link-unknown', {}, state.state === 'gone' ? 410 : 404);
    return undefined;
  }

  r.get('/verify', async (req, res) => {
    const link = await pending(req, res);
    if (!link) return;
    const { kind, creditor, logo } = await verifyKind(db, link);
    if ((await verificationFact(db, link.tenant_id, link.customer_id, kind)).length === 0) return render(req, res, 'no-fact', { creditor, logo });
    await render(req, res, 'verify', { kind, creditor, logo });
  });

  r.post('/verify', async (req, res) => {
    const link = await pending(req, res);
    if (!link) return;
    const { kind, creditor, logo } = await verifyKind(db, link);
    const answer = typeof req.body?.answer === 'string' ? (req.body.answer as string).slice(0, 100) : '';
    const outcome = await db.transaction((trx) => verifyAnswer(trx, link, kind, answer));
    if (outcome === 'no_fact') return render(req, res, 'no-fact', { creditor, logo });
    if (outcome === 'locked') return render(req, res, 'locked', {}, 429);
    if (outcome === 'wrong') {
      return render(req, res, 'verify', { kind, creditor, logo, errors: [{ field: 'answer', message: 'link:verify.mismatch' }] }, 400);
    }
    const to = await landing(db, link, req.session.returnTo);
    await newSessionId(req, false);
    Object.assign(req.session, { tenantId: link.tenant_id, customerId: link.customer_id, linkId: link.id, verifiedAt: Date.now() });
    req.session.lang ??= matchLanguage(await customerLanguage(db, link.tenant_id, link.customer_id));
    res.redirect(303, to);
  });

  r.post('/sign-out', (req, res) => {
    // The signed-out page stays in the language the customer was reading.
    const lang = req.session.lang;
    req.session.destroy(() => res.redirect(303, lang ? `/signed-out?lang=${encodeURIComponent(lang)}` : '/signed-out'));
  });
  r.get('/signed-out', (req, res) => render(req, res, 'signed-out'));
  return r;
}
