/**
 * The write skeleton of every tenant-owned object (docs/api.md sections 3 and 7): insert with
 * `tenant_id` set once, or find the tenant's row under a row lock and change it, merge `metadata`,
 * and record the event in the same transaction (outbox). A resource declares only its table, id
 * prefix, mapping to the public object, event names, and the columns its input changes.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvent } from './outbox.js';
import { findOwned, tenantRows } from './scoped.js';
import { mergeMetadata } from './metadata.js';
import type { AnyResource, EventOf } from './resource.js';

/** What the skeleton needs to know about a resource: its declaration, its mapping, its events. */
export interface OwnedResource<Row, Out, R extends AnyResource = AnyResource> {
  resource: R;
  /** Row → public object (the event carries the same object the response does). */
  toObject: (row: Row) => Out;
  /** Events recorded on create and update; omitted: none (webhook endpoints record none). */
  events?: { created?: EventOf<R>; updated?: EventOf<R> };
}

/** A change computed from the locked current row: the columns to write. */
export type ChangeOf<Row> = (current: Row, trx: Knex.Transaction) => Promise<Record<string, unknown>> | Record<string, unknown>;

/**
 * Copies the fields of `input` that were given (not `undefined`) into columns of the same name.
 * @returns a new object with only those keys
 */
export function givenFields<T extends object, K extends keyof T>(input: T, fields: readonly K[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (input[f] !== undefined) out[f as string] = input[f];
  return out;
}

/**
 * Inserts a new object of `tenantId` and records its `created` event, in one transaction.
 * @param columns the resource's own columns (`metadata` as an object; it is stored as JSON)
 * @param check runs first inside the transaction (e.g. referenced objects must be the tenant's)
 * @returns the public object
 */
export async function createOwned<Row, Out, R extends AnyResource>(
  db: Knex | Knex.Transaction,
  tenantId: string,
  owned: OwnedResource<Row, Out, R>,
  columns: Record<string, unknown> & { metadata?: Record<string, string> },
  check?: (trx: Knex.Transaction) => Promise<void>,
): Promise<Out> {
  return db.transaction(async (trx) => {
    await check?.(trx);
    const [row] = await trx(owned.resource.table)
      .insert({ ...columns, id: newId(owned.resource.idPrefix), tenant_id: tenantId, metadata: JSON.stringify(columns.metadata ?? {}) })
      .returning('*');
    const object = owned.toObject(row as Row);
    if (owned.events?.created) await recordEvent(trx, owned.resource, tenantId, owned.events.created, object);
    return object;
  });
}

/**
 * Locks the tenant's object `id`, writes the columns `change` computes from it (plus `metadata`
 * merged from `metadataPatch`, and `updated_at`), and records the `updated` event, in one
 * transaction. The lock keeps concurrent merges and state checks from interleaving.
 * @throws ApiError 404 `resource_missing` (unknown, hidden, or another tenant's), 400
 *   `validation_failed` (param `metadata`) past 50 keys, and whatever `change` throws
 */
export async function updateOwned<Row extends { id: string; metadata: Record<string, string> }, Out, R extends AnyResource>(
  db: Knex | Knex.Transaction,
  tenantId: string,
  owned: OwnedResource<Row, Out, R>,
  id: string,
  change: ChangeOf<Row>,
  metadataPatch?: Record<string, string>,
): Promise<Out> {
  return db.transaction(async (trx) => {
    const { resource } = owned;
    const current = await findOwned<Row>(trx, resource, tenantId, id, { forUpdate: true });
    const changes = await change(current, trx);
    if (metadataPatch !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, metadataPatch));
    const [row] = await tenantRows(trx, resource, tenantId)
      .where(`${resource.table}.id`, current.id)
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*');
    const object = owned.toObject(row as Row);
    if (owned.events?.updated) await recordEvent(trx, resource, tenantId, owned.events.updated, object);
    return object;
  });
}
