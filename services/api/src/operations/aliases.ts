/**
 * The public API's paths beside ours (docs/api.md section 15): an alias is every operation under one
 * of our path prefixes again under the public API's spelling (`/payment_plans/{id}` →
 * `/payment-plans/{id}`), same access, schemas, errors, events and handler, its own `operationId`
 * (`…ViaAlias`), documented in OpenAPI as an alias. Generated from the tables like the `PUT` twins,
 * so an operation added later under the prefix gets its alias without being declared twice.
 */
import type { AnyOperation } from './operation.js';

/** Our path prefix → the public API's spelling of it. */
export const PATH_ALIASES: ReadonlyArray<readonly [ours: string, theirs: string]> = [['/payment_plans', '/payment-plans']];

/**
 * Adds after each operation under an aliased prefix its alias.
 * @returns a new table
 */
export function withPathAliases(operations: readonly AnyOperation[], aliases = PATH_ALIASES): AnyOperation[] {
  return operations.flatMap((op) => {
    const alias = aliases.find(([ours]) => op.path === ours || op.path.startsWith(`${ours}/`));
    if (!alias) return [op];
    const [ours, theirs] = alias;
    const path = `${theirs}${op.path.slice(ours.length)}`;
    const description = [`Alias of \`${op.method.toUpperCase()} ${op.path}\` (the public API's path).`, op.description].filter(Boolean).join(' ');
    return [op, { ...op, path, operationId: `${op.operationId}ViaAlias`, description }];
  });
}
