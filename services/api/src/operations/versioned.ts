/**
 * Answers in an older API version (docs/api.md section 15): the handler builds the newest shape as
 * always, and the answer is rewritten by the versions table of @dms/webhook-delivery (each change
 * a small transform between adjacent versions, Stripe's mechanism). Relations the older version
 * shows as lists of ids are loaded with the answer's other expansions (one query per relation per
 * page) and collapsed to ids unless `expand[]` asked for them.
 */
import { LATEST_API_VERSION, downgrade, impliedRelations } from '@dms/webhook-delivery';
import type { AnyOperation } from './operation.js';
import { EXPAND_PARAM } from './query.js';
import { stampLivemode } from './livemode.js';

/** The `object` an operation answers with (`debt`), from its response schema, when it declares one. */
function objectOf(op: AnyOperation): string | undefined {
  const props = (op.response.schema as { properties?: { object?: { const?: unknown } } }).properties;
  const value = props?.object?.const;
  return typeof value === 'string' ? value : undefined;
}

/**
 * How to answer `op` in `version`, or undefined for the newest version.
 * Adds to `query['expand[]']` (in place) the relations the version implies, so the handler loads them.
 * @param relations the `expand[]` values the operation accepts
 * @param livemode the request's mode, written on every object of the answer (expanded ones
 *   included) before the transforms, as the newest version's serializer writes it
 * @returns `{serialize}`: the value → the JSON text of the older shape, with a trailing newline
 */
export function olderVersionAnswer(
  op: AnyOperation,
  version: string,
  query: Record<string, unknown>,
  relations: readonly string[],
  livemode: boolean,
): { serialize: (value: unknown) => string } | undefined {
  if (version === LATEST_API_VERSION) return undefined;
  const object = objectOf(op);
  const asked = (query[EXPAND_PARAM] as string[] | undefined) ?? [];
  const first = new Set(asked.map((path) => path.split('.')[0]!));
  const implied = new Set(object ? impliedRelations(object, version).filter((r) => relations.includes(r) && !first.has(r)) : []);
  if (implied.size) query[EXPAND_PARAM] = [...asked, ...implied];
  return { serialize: (value) => `${JSON.stringify(downgrade(stampLivemode(value, livemode), version, implied))}\n` };
}
