/**
 * The named schemas of the API (OpenAPI `components.schemas`), collected from the operation
 * tables: every body and response an operation declares under a name, plus the error body of
 * docs/api.md section 3 built from the `ERROR_CODES` registry of `@dms/errors`.
 */
import { ERROR_CODES } from '@dms/errors';
import { Type } from '@sinclair/typebox';
import type { AnyOperation } from '../operations/operation.js';
import type { ComponentSchemas } from '../operations/serializer.js';

const ERROR_TYPES = [...new Set(Object.values(ERROR_CODES).map((e) => e.type))];

/** The error body of docs/api.md section 3. */
export const errorSchema = Type.Object({
  object: Type.Literal('error'),
  type: Type.Unsafe<string>({ type: 'string', enum: ERROR_TYPES }),
  code: Type.Unsafe<string>({ type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable error code; see the response descriptions.' }),
  message: Type.String({ description: 'Human-readable explanation (generic for 5xx).' }),
  param: Type.Optional(Type.String({ description: 'The parameter, header or body field at fault (`contact_details[0].value`).' })),
  errors: Type.Optional(
    Type.Array(Type.Object({ param: Type.String(), message: Type.String() }), { description: 'Every field problem, when there are several.' }),
  ),
  request_id: Type.String({ description: 'The `Request-Id` of the failed request; quote it to support.' }),
});

/**
 * Every named schema of `operations`, by name.
 * @throws Error when one name is given to two different schemas (a programming error, found at start)
 */
export function componentSchemas(operations: readonly AnyOperation[]): ComponentSchemas {
  const out: Record<string, unknown> = { Error: errorSchema };
  for (const op of operations) {
    for (const named of [op.body, op.response]) {
      if (!named) continue;
      if (out[named.name] !== undefined && out[named.name] !== named.schema) throw new Error(`Schema name ${named.name} is used for two schemas`);
      out[named.name] = named.schema;
    }
  }
  return out as ComponentSchemas;
}
