/**
 * Cancelling the continuous payment authority of a plan (docs/api.md section 18 "Plans with a
 * saved card"): `GET /debts/:id/plan/authority/cancel` asks to confirm, `POST` cancels
 * (`cancelAuthority`: the worker charges the saved method no more; `payment_plan.updated`). The
 * plan itself stays. Only the session's own debt: another's is 404.
 */
import { Router } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { cancelAuthority, chargedPlanOf, customerDebt } from '@dms/domain/portal';
import { render } from '../render.js';
import { requireCustomer } from './debts.js';

/** The authority routes over `db`. */
export function authorityRoutes(db: Knex): Router {
  const r = Router();
  r.use('/debts/:id/plan/authority', requireCustomer);
  const ownDebt = (tenantId: string, customerId: string, debtId: string) => customerDebt(db, tenantId, customerId, debtId);

  r.get('/debts/:id/plan/authority/cancel', async (req, res) => {
    const { tenantId, customerId } = req.session as { tenantId: string; customerId: string };
    if (!(await ownDebt(tenantId, customerId, req.params.id))) return render(req, res, 'not-found', {}, 404);
    const plan = await chargedPlanOf(db, tenantId, customerId, req.params.id);
    await render(req, res, 'authority-cancel', { debtId: req.params.id, plan });
  });

  r.post('/debts/:id/plan/authority/cancel', async (req, res) => {
    const { tenantId, customerId } = req.session as { tenantId: string; customerId: string };
    if (!(await ownDebt(tenantId, customerId, req.params.id))) return render(req, res, 'not-found', {}, 404);
    try {
      await cancelAuthority(db, tenantId, customerId, req.params.id);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'invalid_state_transition') throw err;
      return render(req, res, 'authority-cancel', { debtId: req.params.id }, 409);
    }
    await render(req, res, 'authority-done', { debtId: req.params.id });
  });
  return r;
}
