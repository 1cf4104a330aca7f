/**
 * Checks that a request records only the event types its operation declares (OpenAPI `x-events`,
 * docs/api.md section 7): `eventCheck` sends one request of a documented operation, reads the
 * tenant's new events, and notes whether they are a non-empty subset of the declaration (none for
 * an operation declaring none); a supertest request is sent only when awaited, so events recorded
 * by set-up requests before it are left out. `expectChecked` ends a test: every note `ok`, and the
 * operations checked exactly the test's entry of checked-operations.ts (which events.test.ts holds
 * against the document).
 */
import { expect } from '@jest/globals';
import type request from 'supertest';
import type { apiAs } from '../support/harness.js';
import { CHECKED_OPERATIONS } from './checked-operations.js';

type Json = Record<string, any>;
type Method = 'post' | 'patch' | 'put' | 'delete';

/** What one checked request gives back: its response body. */
export type Run = (method: Method, path: string, send: request.Test) => Promise<Json>;

/**
 * A checker over the events `reader` (the tenant's API agent) sees, against OpenAPI document `doc`.
 * @returns `run` (send a request of operation `method path`, check its events, return its body) and
 *   `results` (one line per request: `<method> <path> ok`, or what was emitted and declared)
 */
export async function eventCheck(reader: ReturnType<typeof apiAs>, doc: Json): Promise<{ run: Run; results: string[] }> {
  let seen = new Set<string>();
  const newEvents = async (): Promise<string[]> => {
    const all = (await reader.get('/events?limit=100').expect(200)).body.data as Json[];
    const fresh = all.filter((e) => !seen.has(e.id));
    seen = new Set(all.map((e) => e.id));
    return [...new Set(fresh.map((e) => e.type as string))].sort();
  };
  await newEvents();
  const results: string[] = [];
  const run: Run = async (method, path, send) => {
    await newEvents(); // what was set up since the last check is not this request's
    const res = await send;
    expect([method, path, res.status < 300 ? 0 : JSON.stringify(res.body)]).toEqual([method, path, 0]);
    const declared: string[] = doc.paths[path][method]['x-events'] ?? [];
    const emitted = await newEvents();
    const ok = declared.length ? emitted.length > 0 && emitted.every((t) => declared.includes(t)) : emitted.length === 0;
    results.push(`${method} ${path} ${ok ? 'ok' : `emitted ${emitted.join(',')} declared ${declared.join(',')}`}`);
    return res.body;
  };
  return { run, results };
}

/**
 * Ends a test of `eventCheck` notes `results`: none but `ok`, and the operations they name
 * (`<method> <path>`) are exactly `CHECKED_OPERATIONS[entry]`, so a check dropped from the test,
 * or one not listed there, fails.
 */
export function expectChecked(results: string[], entry: keyof typeof CHECKED_OPERATIONS): void {
  expect(results.filter((r) => !r.endsWith(' ok'))).toEqual([]);
  const ran = new Set(results.map((r) => r.split(' ').slice(0, 2).join(' ')));
  expect([...ran].sort()).toEqual([...CHECKED_OPERATIONS[entry]].sort());
}
