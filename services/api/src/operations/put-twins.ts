/**
 * `PUT` with the meaning of `PATCH` (docs/api.md section 10): every operation updated by `PATCH`
 * also answers `PUT` on the same path (fields given are replaced, others kept), as the public API
 * we follow does. Generated here, from the tables, so an operation added later gets its twin
 * without being declared twice.
 */
import type { AnyOperation } from './operation.js';

/** `updateCustomer` → `replaceCustomer`; any other id gets `replace` prefixed. */
function twinId(operationId: string): string {
  return operationId.startsWith('update') ? `replace${operationId.slice('update'.length)}` : `replace${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;
}

/**
 * Adds after each `PATCH` operation its `PUT` twin: same path, access, schemas, errors, events and
 * handler, its own `operationId` (`replaceX`). A `PUT` already declared for a path is kept as is.
 * @returns a new table
 */
export function withPutTwins(operations: readonly AnyOperation[]): AnyOperation[] {
  const declared = new Set(operations.filter((o) => o.method === 'put').map((o) => o.path));
  return operations.flatMap((op) => {
    if (op.method !== 'patch' || declared.has(op.path)) return [op];
    const description = [op.description, 'Same as `PATCH` on this path: fields given are replaced, others kept.'].filter(Boolean).join(' ');
    return [op, { ...op, method: 'put' as const, operationId: twinId(op.operationId), summary: op.summary.replace(/^Update/, 'Replace'), description }];
  });
}
