/**
 * Shared assertion for the search language's errors (docs/api.md section 4): 400
 * `invalid_search_query`, `param: "query"`, and a message ending with the 1-based position.
 */
import { expect } from '@jest/globals';
import { ApiError } from '@dms/errors';

/**
 * Runs `fn`, expects it to throw a search error, and returns the error.
 * @param position the 1-based position the message must end with
 * @param fragment text the message must contain (a string or a pattern)
 */
export function expectSearchError(fn: () => unknown, position: number, fragment?: string | RegExp): ApiError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  const err = thrown as ApiError;
  expect(err.code).toBe('invalid_search_query');
  expect(err.status).toBe(400);
  expect(err.param).toBe('query');
  expect(err.message).toMatch(new RegExp(` at position ${position}\\.$`));
  if (typeof fragment === 'string') expect(err.message).toContain(fragment);
  else if (fragment) expect(err.message).toMatch(fragment);
  return err;
}
