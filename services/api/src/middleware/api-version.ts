/**
 * API versioning (docs/api.md section 3): the optional `Api-Version: YYYY-MM-DD` request header picks
 * the version, the newest by default; the response echoes the version used. An unknown version is
 * 400 rather than a silent fallback, so a client never runs against a shape it did not ask for.
 * `Ophelos-Version`, the header the public API's clients send (docs/api.md section 15), is read as
 * `Api-Version`; both at once must agree.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@dms/errors';
import { API_VERSIONS, LATEST_API_VERSION } from '@dms/webhook-delivery';
// `req.apiVersion` is declared there; imported here so the module type-checks on its own.
import '../http/types.js';

export { API_VERSIONS, LATEST_API_VERSION };

/**
 * Sets `req.apiVersion` and echoes it in the `Api-Version` response header.
 * Errors (to `next`): 400 `unsupported_api_version` with `param: 'Api-Version'` for a version not in API_VERSIONS.
 */
export const apiVersion: RequestHandler = (req, res, next) => {
  const ours = req.headers['api-version'];
  const theirs = req.headers['ophelos-version'];
  if (ours !== undefined && theirs !== undefined && String(ours).trim() !== String(theirs).trim()) {
    return next(new ApiError('unsupported_api_version', 'Api-Version and Ophelos-Version name different versions; send one.', { param: 'Ophelos-Version' }));
  }
  const asked = ours ?? theirs;
  const version = asked === undefined ? LATEST_API_VERSION : String(asked).trim();
  if (!(API_VERSIONS as readonly string[]).includes(version)) {
    return next(
      new ApiError('unsupported_api_version', `Unsupported Api-Version "${version}". Supported: ${API_VERSIONS.join(', ')}.`, {
        param: ours === undefined ? 'Ophelos-Version' : 'Api-Version',
      }),
    );
  }
  req.apiVersion = version;
  res.setHeader('Api-Version', version);
  if (theirs !== undefined) res.setHeader('Ophelos-Version', version);
  next();
};
