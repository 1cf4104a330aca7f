/**
 * Test helpers exist only in test mode (docs/api.md section 15): to a live token (a live client's,
 * or an operator's acting for a live tenant) their paths are unknown, 404 `route_not_found`
 * exactly as any unknown path, so a live integration cannot reach them by mistake.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@dms/errors';

/** Passes a test-mode request on; answers any other as an unknown path. */
export const testModeOnly: RequestHandler = (req, res, next) => {
  if (req.principal?.livemode === false) return next();
  next(new ApiError('route_not_found', `Unrecognised request URL (${req.method} ${req.path}).`));
};
