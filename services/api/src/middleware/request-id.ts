/**
 * Gives every request a `req_…` identifier, returned in the `Request-Id` header and in error
 * bodies, and written in every log line of the request.
 */
import type { RequestHandler } from 'express';
import { newId } from '@dms/ids';

/** Sets `req.id` to a fresh `req_` id (@dms/ids) and the `Request-Id` response header. */
export const requestId: RequestHandler = (req, res, next) => {
  req.id = newId('req');
  res.setHeader('Request-Id', req.id);
  next();
};
