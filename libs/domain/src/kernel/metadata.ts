/**
 * Metadata updates (docs/api.md section 3, `metadataPatchSchema`): a `PATCH` merges keys into the
 * stored metadata instead of replacing it, so two clients that own different keys do not erase
 * each other's data; the empty string removes a key.
 */
import { ApiError } from '@dms/errors';

/** Most keys a metadata object may hold (docs/api.md section 3). */
export const MAX_METADATA_KEYS = 50;

/**
 * Merges `patch` into `current`: keys with a non-empty value are set, keys with `""` removed.
 * @returns a new object (inputs are not modified)
 * @throws ApiError 400 `validation_failed` (param `metadata`) when the result has over 50 keys
 */
export function mergeMetadata(current: Record<string, string>, patch: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > MAX_METADATA_KEYS) {
    const message = `metadata would hold more than ${MAX_METADATA_KEYS} keys after merging`;
    throw new ApiError('validation_failed', message, { param: 'metadata', errors: [{ param: 'metadata', message }] });
  }
  return merged;
}
