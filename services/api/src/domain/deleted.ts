/**
 * The answer to a successful `DELETE` (as Stripe answers): the id, the type and `deleted: true`.
 * Also what an expansion shows in place of an object that has since been deleted.
 */
import type { JsonSchema } from '../http/validation.js';

/** `{id, object, deleted: true}` for an object of type `T`. */
export interface DeletedObject<T extends string> {
  id: string;
  object: T;
  deleted: true;
}

/** Builds the deleted stub of `object` `id`. */
export function deletedObject<T extends string>(object: T, id: string): DeletedObject<T> {
  return { id, object, deleted: true };
}

/** JSON Schema of the deleted stub of `object` (for the OpenAPI document). */
export function deletedObjectSchema(object: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'object', 'deleted'],
    properties: { id: { type: 'string' }, object: { const: object }, deleted: { const: true } },
  };
}
