/**
 * The brand heading every page about one of the customer's debts (docs/api.md section 18, "Brand"):
 * the organisation's `customer_facing_name` (else `name`) and its logo, kept in `res.locals.brand`
 * where render.ts gives it to the layout. Pages under `/debts/:id` get it from the address, the
 * local provider's checkout pages from their payment's debt (routes/checkout.ts). Only for a
 * verified session and only for the session's own debt; other pages show "Your account".
 */
import type { NextFunction, Request, Response } from 'express';
import type { Knex } from '@dms/db';
import { customerDebtBrand } from '@dms/domain/portal';

/** The layout's brand values of a page (`creditor`, `logo`), as the verify and debt pages pass them. */
export interface Brand {
  creditor: string;
  logo: string | null;
}

/** Puts the brand of `debtId`'s organisation in `res.locals.brand` when the session is verified and the debt is its customer's. */
export async function brandFor(db: Knex, req: Request, res: Response, debtId: string): Promise<void> {
  const { tenantId, customerId } = req.session ?? {};
  if (!tenantId || !customerId) return;
  const brand = await customerDebtBrand(db, tenantId, customerId, debtId);
  if (brand) res.locals.brand = brand satisfies Brand;
}

/** Middleware for `/debts/:id…`: the brand of the debt in the address (`brandFor`). */
export function debtPageBrand(db: Knex) {
  return (req: Request<{ id: string }>, res: Response, next: NextFunction): void => {
    brandFor(db, req, res, req.params.id).then(() => next(), next);
  };
}
