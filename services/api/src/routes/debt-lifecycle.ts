/**
 * `POST /debts/{id}/{action}`: the lifecycle actions of CONTRACT section 6, one route per action
 * (so each appears in the API reference), each with an optional `{"reason"}` body.
 */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { requireScope } from '../middleware/require-scope.js';
import { validator } from '../http/validation.js';
import { reasonBodySchema } from '../domain/schema-parts.js';
import { DEBT_ACTIONS } from '../domain/debt-lifecycle.js';
import { moveDebt } from '../domain/debt-moves.js';

/**
 * `POST /debts/{id}/{action}` for every action of DEBT_ACTIONS, with an optional `{"reason"}`
 * body; answers the moved debt, or 409 when the action is not allowed from its status.
 */
export function debtLifecycleRoutes(ctx: AppContext): Router {
  const router = Router();
  const validateReason = validator<{ reason?: string }>(reasonBodySchema);
  for (const action of DEBT_ACTIONS) {
    router.post(`/:id/${action}`, requireScope('debts:write'), async (req, res) => {
      const { reason } = validateReason(req.body ?? {});
      res.json(await moveDebt(ctx.db, req.principal!.tenantId, String(req.params.id), action, reason ?? null));
    });
  }
  return router;
}
