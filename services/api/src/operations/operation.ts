/**
 * One operation of the API as one declaration (docs/api.md section 3): method, path template,
 * access, the JSON Schemas of its query, body and response, the errors and events it can produce,
 * and its handler. `mount` turns a table of these into Express routes (scope check, query and
 * body validation, compiled response serializer); the OpenAPI document is generated from the same
 * tables, so a route cannot exist undocumented and a documented scope is the enforced one.
 */
import type { Request, Response } from 'express';
import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '@dms/errors';
import type { IdPrefix } from '@dms/ids';
import type { Scope } from '@dms/scopes';
import type { AppContext } from '../context.js';
import type { EventType } from '@dms/domain';
import type { Principal } from '../http/types.js';
import type { PageResult } from '../http/pagination.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How the caller authenticates: a bearer token (with `scope` when one is needed), or not at all. */
export type Access = { token: true; scope?: Scope } | { token: false };

/** A named JSON Schema: `name` is its component name in the OpenAPI document. */
export interface NamedSchema<S extends TSchema = TSchema> {
  name: string;
  schema: S;
}

/**
 * The path parameters of a path template, typed: `/debts/{debtId}/payments/{id}` gives
 * `{debtId: string; id: string}`, so handlers read `params.id` without a cast.
 */
export type PathParams<P extends string> = string extends P
  ? Record<string, string>
  : P extends `${string}{${infer Name}}${infer Rest}`
    ? { [K in Name]: string } & PathParams<Rest>
    : unknown;

/** What a handler receives: validated inputs plus the request context. */
export interface OperationInput<Q, B, Params = Record<string, string>> {
  ctx: AppContext;
  /** The verified caller; `undefined` only for public operations. */
  principal: Principal;
  /** The caller's tenant: every object the handler touches must belong to it. */
  tenantId: string;
  /** Path parameters by template name (`{id}` → `params.id`), typed from the path template. */
  params: Params;
  /** The query after schema validation (types coerced, defaults applied). */
  query: Q;
  /** The body after schema validation (`{}` for an omitted optional body). */
  body: B;
  req: Request;
  res: Response;
}

/** One operation. `Q` and `B` are the TypeBox schemas of the query and body, `P` its path template. */
export interface Operation<Q extends TSchema = TSchema, B extends TSchema = TSchema, P extends string = string> {
  method: HttpMethod;
  /** OpenAPI path template, parameters as `{name}`. */
  path: P;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters: name → prefix of the object id it takes (documentation and 404 wording). */
  pathParams?: Record<string, IdPrefix>;
  /** Query string schema (an object schema; see query.ts for the shared pieces). */
  query?: Q;
  /**
   * Request body; `optional` when it may be omitted (lifecycle actions). A `multipart` body is
   * documented as `multipart/form-data` and read by the handler itself, streamed (file uploads).
   */
  body?: NamedSchema<B> & { optional?: boolean; multipart?: boolean };
  /**
   * Success status and body. `list` wraps the schema in `{"object":"list","data":[…]}` and the
   * handler returns a PageResult; `produces` marks a body the handler writes itself.
   */
  response: NamedSchema & {
    status: 200 | 201;
    list?: boolean;
    produces?: 'text/html' | 'text/plain' | 'text/csv' | 'application/json';
    /**
     * Other success statuses with the same body, each with when it is answered: the handler sets
     * the status itself on every answer (`POST /imports`: 201 new, 200 the same file again).
     */
    also?: Partial<Record<200 | 201, string>>;
  };
  /** Errors particular to this operation (those common to its kind are added by the generator). */
  errors?: ErrorCode[];
  /** Event types the operation may record (written through the outbox; OpenAPI `x-events`, each operation declaring any is run and checked by the test/openapi/events*.test.ts files). */
  events?: EventType[];
  /**
   * A test helper (docs/api.md section 15): only test clients reach it; to a live token it does not
   * exist (404 `route_not_found`). OpenAPI marks it `x-test-only`.
   */
  testOnly?: true;
  handler: (input: OperationInput<Static<Q>, Static<B>, PathParams<P>>) => unknown;
}

/** An operation whose schema types have been checked and erased, as tables hold them. */
export type AnyOperation = Operation<TSchema, TSchema>;

/**
 * Declares an operation: checks the handler against the schemas' static types, then erases them
 * so operations of different shapes share one table.
 */
export function defineOperation<Q extends TSchema = TSchema, B extends TSchema = TSchema, const P extends string = string>(
  op: Operation<Q, B, P>,
): AnyOperation {
  return op as unknown as AnyOperation;
}

/**
 * The actor of a status change made by the calling client (docs/api.md sections 9 and 12): its
 * `whodunnit`, the client id, or `operator:<client id>` for an operator.
 */
export function actor(input: Pick<OperationInput<unknown, unknown, unknown>, 'principal'>): { whodunnit: string } {
  const { clientId, operator } = input.principal;
  return { whodunnit: operator ? `operator:${clientId}` : clientId };
}

/** What a list handler returns (see lists.ts): mount writes it with the pagination headers. */
export type ListOutcome = PageResult<{ id: string }>;
