/**
 * The response shapes of the older API versions in the OpenAPI document (docs/api.md section 15):
 * each response component whose shape an older version changes gets a copy in that version's
 * shape (`Debt_2025_04_01`), made by `downgradeSchema` of @dms/webhook-delivery from the same table
 * of changes that rewrites the answers, and each success response that carries one names it in
 * `x-api-versions` (`{"2025-04-01": {"schema": …}}`) and in its description.
 */
import { API_VERSIONS, LATEST_API_VERSION, downgradeSchema } from '@dms/webhook-delivery';
import type { AnyOperation as Operation } from '../operations/operation.js';
import { ref, type Json } from './parameters.js';

/** The versions before the newest, oldest first. */
const OLDER_VERSIONS = API_VERSIONS.filter((v) => v !== LATEST_API_VERSION);

/** The component name of `name` in `version`'s shape: `Debt` → `Debt_2025_04_01`. */
export const versionedName = (name: string, version: string) => `${name}_${version.replaceAll('-', '_')}`;

/**
 * The older versions' copies of the response components among `schemas` (JSON, by name) whose
 * shape they change, by their versioned names.
 */
export function olderComponents(schemas: Record<string, unknown>, operations: readonly Operation[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const responses = new Set(operations.filter((op) => !op.response.produces || op.response.produces === 'application/json').map((op) => op.response.name));
  for (const name of responses) {
    const schema = schemas[name] as Json;
    for (const version of OLDER_VERSIONS) {
      const older = downgradeSchema(schema, version);
      if (JSON.stringify(older) !== JSON.stringify(schema)) out[versionedName(name, version)] = older;
    }
  }
  return out;
}

/**
 * What an operation's success response says of the older versions: `x-api-versions` and a line of
 * description for each version with its own shape, or nothing when every version has the newest.
 * @param older the components `olderComponents` made
 */
export function olderResponses(op: Operation, older: Record<string, unknown>): { note: string; extension: Json } | undefined {
  const extension: Json = {};
  const notes: string[] = [];
  for (const version of OLDER_VERSIONS) {
    const name = versionedName(op.response.name, version);
    if (older[name] === undefined) continue;
    const item = ref('schemas', name);
    extension[version] = {
      schema: op.response.list
        ? { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: item } } }
        : item,
    };
    notes.push(`With \`Api-Version: ${version}\` the ${op.response.list ? 'items are' : 'body is'} \`${name}\`.`);
  }
  return notes.length ? { note: notes.join(' '), extension } : undefined;
}
