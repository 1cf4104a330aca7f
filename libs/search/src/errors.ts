/**
 * Errors of the search language: always 400 `invalid_search_query`, `param: "query"`, and a
 * message that ends with the 1-based character position it refers to, so a client (or a human)
 * can point at the offending spot.
 */
import { ApiError } from '@dms/errors';

/**
 * Builds the error for `message` at `position`.
 * @param position 1-based index of the character in the query
 */
export function searchError(message: string, position: number): ApiError {
  return new ApiError('invalid_search_query', `${message} at position ${position}.`, { param: 'query' });
}
