/**
 * The operational endpoints (docs/api.md section 1): liveness, readiness, Prometheus metrics, the
 * OpenAPI document and the API reference page. Public: no token, outside the versioned API.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isReachable } from '@dms/db';
import { Type } from '@sinclair/typebox';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';

/** `services/api/public/docs`: the reference page and its initializer script. */
export const DOCS_PAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../public/docs');

const PUBLIC = { token: false } as const;
const ProbeStatus = { name: 'ProbeStatus', schema: Type.Object({ status: Type.Unsafe<string>({ type: 'string', enum: ['ok', 'ready', 'unavailable'] }) }) };
const Text = { name: 'Text', schema: Type.String() };
const head = { tag: 'Operations', access: PUBLIC, method: 'get' } as const;

/** The operations of the service itself. */
export const serviceOperations: AnyOperation[] = [
  defineOperation({
    ...head,
    path: '/healthz',
    operationId: 'health',
    summary: 'Liveness probe',
    response: { ...ProbeStatus, status: 200 },
    handler: () => ({ status: 'ok' }),
  }),
  defineOperation({
    ...head,
    path: '/readyz',
    operationId: 'readiness',
    summary: 'Readiness probe',
    description: '200 while the database is reachable and the process is not draining; 503 otherwise.',
    response: { ...ProbeStatus, status: 200 },
    errors: ['service_unavailable'],
    handler: async ({ ctx, res }) => {
      const ready = !ctx.runtime?.isDraining() && (await isReachable(ctx.db));
      res.status(ready ? 200 : 503);
      return { status: ready ? 'ready' : 'unavailable' };
    },
  }),
  defineOperation({
    ...head,
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description: 'Text exposition format, including `http_request_duration_seconds{method,route,status}`; `route` is always a path template of this document.',
    response: { ...Text, status: 200, produces: 'text/plain' },
    handler: async ({ ctx, res }) => {
      const { contentType, body } = await ctx.runtime!.metricsText();
      res.type(contentType).send(body);
    },
  }),
  defineOperation({
    ...head,
    path: '/openapi.json',
    operationId: 'openapiDocument',
    summary: 'This OpenAPI 3.1 document',
    response: { name: 'OpenApiDocument', schema: Type.Object({}, { description: 'An OpenAPI 3.1 document.' }), status: 200, produces: 'application/json' },
    handler: ({ ctx, res }) => void res.type('application/json').send(ctx.runtime!.openapiJson),
  }),
  defineOperation({
    ...head,
    path: '/docs',
    operationId: 'apiReference',
    summary: 'API reference page (Swagger UI) rendered from this document',
    response: { ...Text, status: 200, produces: 'text/html' },
    handler: ({ res }) => res.sendFile(join(DOCS_PAGE_DIR, 'index.html')),
  }),
];
