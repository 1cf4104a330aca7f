/**
 * The customer's debts (docs/api.md section 18): `GET /debts` (newest first) and `GET /debts/:id`,
 * both only for a verified session and bound to its tenant and customer: another customer's or
 * tenant's debt id is 404 with nothing shown. Without a session every `/debts…` page is a 401 page
 * asking for the message's link (`requireCustomer`). Each page shown is recorded in the customer's
 * access log (docs/api.md section 20) as `portal_session:<link id>`.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Knex } from '@dms/db';
import { DEBT_PAGE_PATH, customerDebt, customerDebts } from '@dms/domain/portal';
import { recordAccess } from '@dms/domain/personal-data';
import { render } from '../render.js';

/**
 * Lets only a verified session through; others get a 401 page saying to open the link of the
 * message we sent them. A debt's own page (`GET /debts/<deb_id>`, the API's `portal_url`) is
 * kept in the session as `returnTo`, where verification through a link sends the customer back
 * (routes/link.ts): only that path of this site, never an address from the request's query.
 */
export function requireCustomer(req: Request, res: Response, next: NextFunction): void {
  if (req.session?.customerId && req.session.tenantId) return next();
  const path = req.baseUrl + req.path;
  const returning = req.method === 'GET' && DEBT_PAGE_PATH.test(path);
  if (returning) req.session.returnTo = path;
  void render(req, res, 'signed-out', { expired: true, returning }, 401);
}

/** Records that this session read the customer's data through `operation` (a page name). */
export function logRead(db: Knex, req: Request, operation: string): Promise<void> {
  return recordAccess(db, { tenant: req.session.tenantId!, customerId: req.session.customerId!, actor: `portal_session:${req.session.linkId}`, operation });
}

/** The debt routes over `db`. */
export function debtRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts', requireCustomer);
  r.get('/debts', async (req, res) => {
    const debts = await customerDebts(db, req.session.tenantId!, req.session.customerId!);
    await logRead(db, req, 'portal:debts');
    await render(req, res, 'debts', { debts });
  });
  r.get('/debts/:id', async (req, res) => {
    const view = await customerDebt(db, req.session.tenantId!, req.session.customerId!, req.params.id);
    if (!view) return render(req, res, 'not-found', {}, 404);
    await logRead(db, req, 'portal:debt');
    await render(req, res, 'debt', view);
  });
  return r;
}
