/**
 * Turns operation tables into Express routes (docs/api.md section 3). Each route is the same
 * ordered checklist: label the request with its path template (metrics), hide a test helper from
 * live tokens (section 15), require the scope,
 * validate the query and the body against their schemas (an operation without a body takes none:
 * a body sent anyway must be `{}`, so an array or any field is a 400 naming it), run the handler (in the request
 * transaction of an idempotent write, request-transaction.ts), and write its result
 * with the serializer compiled from the response schema (lists with the pagination headers of
 * docs/api.md section 4).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { validator } from '@dms/domain/kernel';
import { recordAccesses } from '@dms/domain/personal-data';
import { writePage } from '../http/pagination.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../http/types.js';
import { requireScope } from '../middleware/require-scope.js';
import { testModeOnly } from '../middleware/test-mode-only.js';
import type { AnyOperation, ListOutcome, OperationInput } from './operation.js';
import { runWrite } from './request-transaction.js';
import { EXPAND_PARAM, checkExpand, expandRelations, querySchema, queryParser } from './query.js';
import { sendJsonText } from '../http/send-json.js';
import { compileInlined, inlineRefs, listSchema, withRelationIds, type ComponentSchemas } from './serializer.js';
import { stampLivemode, withLivemodeProperty } from './livemode.js';
import { olderVersionAnswer } from './versioned.js';

/** `/debts/{id}` → `/debts/:id` (Express 5 / path-to-regexp syntax). */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** Literal segments before parameters, so `/debts/search` is matched before `/debts/{id}`. */
export function bySpecificity(a: AnyOperation, b: AnyOperation): number {
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i += 1) {
    const pa = sa[i]!.startsWith('{');
    const pb = sb[i]!.startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

/** Remembers the operation on the response, for the metrics label and the logs. */
function label(op: AnyOperation): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = op.path;
    next();
  };
}

/** The compiled validators of one operation (Ajv). */
interface Compiled {
  parseQuery: (raw: Record<string, unknown>) => Record<string, unknown>;
  /** Undefined for an upload, whose handler reads the multipart body itself. */
  parseBody: ((value: unknown) => unknown) | undefined;
}

/** The serializers of one operation in one mode (fast-json-stringify): with and without `expand[]`. */
interface Serializers {
  full: ((value: unknown) => string) | undefined;
  idsOnly: ((value: unknown) => string) | undefined;
  /** `expand[]` values the operation accepts. */
  relations: readonly string[];
}

/** The body of an operation that takes none: absent, or an empty object (clients that always send `{}`). */
const NO_BODY = { type: 'object', additionalProperties: false, description: 'This operation takes no request body.' };

function compile(op: AnyOperation): Compiled {
  return {
    parseQuery: queryParser<Record<string, unknown>>(op.query ?? querySchema({})),
    // An upload's multipart body is read by its handler, streamed (resources/imports/upload.ts).
    parseBody: op.body?.multipart ? undefined : validator<unknown>(op.body ? op.body.schema : NO_BODY),
  };
}

/** Serializers writing `livemode` = `livemode` on every object (docs/api.md section 15, livemode.ts). */
function compileSerializers(op: AnyOperation, components: ComponentSchemas, livemode: boolean): Serializers {
  const item = op.response.schema;
  const inlined = op.response.produces ? undefined : inlineRefs(op.response.list ? listSchema(item) : item, components);
  const schema = inlined === undefined ? undefined : withLivemodeProperty(inlined, livemode);
  const full = schema === undefined ? undefined : compileInlined(schema);
  // Without `expand[]` every relation is an id (or null): a serializer of that narrower schema skips
  // fast-json-stringify's run-time choice of a `oneOf` branch.
  const relations = expandRelations(op.query);
  return {
    relations,
    full,
    idsOnly: schema === undefined || !relations.length ? full : compileInlined(withRelationIds(schema, relations, op.response.list === true)),
  };
}

function handle(ctx: AppContext, op: AnyOperation, components: ComponentSchemas): RequestHandler {
  // Compiled on the operation's first request, not at start: a process starts in a fraction of the
  // CPU time (most of which went to compiling every operation's schemas), and serves the same.
  let compiled: Compiled | undefined;
  // By mode: a test-mode serializer is compiled only once a test client calls the operation.
  const serializers = new Map<boolean, Serializers>();
  return async (req: Request, res: Response) => {
    const { parseQuery, parseBody } = (compiled ??= compile(op));
    const principal = req.principal as Principal;
    const livemode = principal?.livemode ?? true;
    let modeSerializers = serializers.get(livemode);
    if (!modeSerializers) serializers.set(livemode, (modeSerializers = compileSerializers(op, components, livemode)));
    const { full, idsOnly, relations } = modeSerializers;
    const query = parseQuery(req.query);
    checkExpand(op.query, query);
    // An older API version (docs/api.md section 15): the newest shape, then the versions table.
    const older = full ? olderVersionAnswer(op, req.apiVersion, query, relations, livemode) : undefined;
    const expand = query[EXPAND_PARAM] as string[] | undefined;
    // Objects expanded inside expanded objects are outside the response schema's `oneOf`s: written
    // as built, with the `livemode` the schema's serializer would have written.
    const nested = expand?.some((path) => path.includes('.')) ? (value: unknown) => `${JSON.stringify(stampLivemode(value, livemode))}\n` : undefined;
    const serialize = older?.serialize ?? nested ?? (expand?.length ? full : idsOnly);
    const body = parseBody && (op.body || req.body !== undefined) ? parseBody(req.body ?? {}) : undefined;
    const produce = async (c: AppContext): Promise<string | undefined> => {
      const input = { ctx: c, principal, tenantId: principal?.tenantId, params: req.params as Record<string, string>, query, body, req, res };
      // A handler that streams its own body (an export) has served it when it returns: its read is
      // recorded before, so the access log never lags what the operator already has.
      const streamed = !serialize && !op.response.list;
      const operatorRead = principal?.operator === true && op.personalData !== undefined;
      if (operatorRead && streamed) await recordOperatorReads(op, { ...input, principal: principal, tenantId: principal.tenantId }, undefined);
      const result = await op.handler(input);
      if (operatorRead && !streamed) await recordOperatorReads(op, { ...input, principal: principal, tenantId: principal.tenantId }, result);
      if (!serialize) return undefined; // the handler wrote a non-JSON body itself
      if (op.response.list) {
        const page = result as ListOutcome;
        writePage(req, res, c.cfg.PUBLIC_BASE_URL, page);
        return serialize({ object: 'list', data: page.data });
      }
      // A handler may answer another documented status itself (readiness: 503, `also`); else the declared one.
      if (res.statusCode === 200 && !op.response.also?.[200]) res.status(op.response.status);
      return serialize(result);
    };
    // With an Idempotency-Key claim, the handler's writes and the stored response share one transaction.
    const text = await runWrite(ctx, res, produce);
    if (text !== undefined) sendJsonText(req, res, text);
  };
}

/** Records in the access log each customer whose personal data an operator's call read (docs/api.md section 18). */
async function recordOperatorReads(op: AnyOperation, input: OperationInput<unknown, unknown, Record<string, string>>, result: unknown): Promise<void> {
  const shown = op.response.list ? (result as ListOutcome).data : result;
  const customerIds = [...new Set(await op.personalData!(shown, input))];
  const { principal } = input;
  const actor = `operator:${principal.clientId}`;
  await recordAccesses(
    input.ctx.db,
    customerIds.map((customerId) => ({ tenant: principal.tenantId, customerId, actor, operation: op.operationId })),
  );
}

/** True for an operation whose body is an upload the handler streams (mounted before JSON body parsing). */
export const isUpload = (op: AnyOperation): boolean => op.body?.multipart === true;

/**
 * Mounts operations on a new router, most specific paths first.
 * @param components the named schemas response schemas may reference
 */
export function mountOperations(ctx: AppContext, operations: readonly AnyOperation[], components: ComponentSchemas): Router {
  const router = Router();
  for (const op of [...operations].sort(bySpecificity)) {
    const chain: RequestHandler[] = [label(op)];
    if (op.testOnly) chain.push(testModeOnly);
    if (op.access.token && op.access.scope) chain.push(requireScope(op.access.scope));
    router[op.method](expressPath(op.path), ...chain, handle(ctx, op, components));
  }
  return router;
}
