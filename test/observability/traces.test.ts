/**
 * Traces (docs/api.md section 11): an API and a dispatcher started with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * at a real OTLP/HTTP receiver (tools/src/traces, decoding the SDK's protobuf export). One debt
 * creation is one trace: the API's server span, its PostgreSQL queries, the dispatcher's delivery
 * of the `debt.created` event (a child of the request, linked to it through the trace context
 * stored with the outbox event) and the outgoing POST, whose `traceparent` the receiver gets. The
 * API's log lines of that request carry its trace id. Without the variable nothing is exported
 * and deliveries carry no `traceparent`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { startTraceReceiver, type ReceivedSpan, type TraceReceiver } from '@dms/tools/traces';
import { SERVICE_ENV, apiAs, closeHarness, newTenant, seedParties, tokenFor } from '../support/harness.js';
import { serviceSet } from '../support/services.js';
import { eventually } from '../support/eventually.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const services = serviceSet();
let traces: TraceReceiver;
let hooks: Receiver;
let api: RunningService;

beforeAll(async () => {
  traces = await startTraceReceiver();
  hooks = await startReceiver();
  // A short batch delay, so spans arrive within the test's wait.
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, OTEL_BSP_SCHEDULE_DELAY: '100', WEB_CONCURRENCY: '1' };
  api = await services.start('api', { ...SERVICE_ENV, ...otel });
});

afterAll(async () => {
  await services.stopAll();
  await Promise.all([traces?.close(), hooks?.close()]);
  await closeHarness();
});

/** A tenant on `base` with an endpoint at the hook receiver for `debt.created`, and its parties. */
async function tenantWithEndpoint(base: string) {
  const tenant = await newTenant();
  const t = apiAs(await tokenFor(tenant), base);
  const endpoint = (await t.post('/webhooks', { url: hooks.hookUrl, enabled_events: ['debt.created'] }).expect(201)).body;
  hooks.setSigningSecret(endpoint.signing_secret);
  return { tenant, t, parties: await seedParties(t) };
}

const spansOf = (traceId: string) => traces.spans.filter((s) => s.traceId === traceId);

test("one debt creation's trace spans the API, its database queries and the webhook delivery", async () => {
  const { tenant, t, parties } = await tenantWithEndpoint(api.url);
  const dispatcher = await services.start('dispatcher', {
    ...SERVICE_ENV,
    DISPATCH_TENANT_IDS: tenant.tenantId,
    OTEL_EXPORTER_OTLP_ENDPOINT: traces.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  const debt = (
    await t
      .post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', breakdown: { principal: 5000 } })
      .expect(201)
  ).body;

  await eventually(() => hooks.received.some((r) => r.event.data?.object?.id === debt.id), 'the debt.created delivery', 30_000);
  const delivered = hooks.received.find((r) => r.event.data?.object?.id === debt.id)!;
  expect(delivered.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId, parentOfRequest] = delivered.traceparent!.split('-');

  let request: ReceivedSpan | undefined;
  let deliver: ReceivedSpan | undefined;
  let post: ReceivedSpan | undefined;
  await eventually(
    () => {
      const spans = spansOf(traceId!);
      request = spans.find((s) => s.service === 'dms-api' && s.kind === 2 && s.name.startsWith('POST'));
      deliver = spans.find((s) => s.service === 'dms-dispatcher' && s.name === 'webhook.deliver');
      post = spans.find((s) => s.spanId === parentOfRequest);
      return Boolean(request && deliver && post);
    },
    'the spans of the request and of its delivery',
    30_000,
  );
  const spans = spansOf(traceId!);
  // The API: the request's server span (POST /debts), a root of this trace.
  expect(request).toMatchObject({ parentSpanId: '', attributes: expect.objectContaining({ 'http.route': '/debts' }) });
  // Its database work: pg spans of the API in the same trace, the INSERT of the debt among them.
  const queries = spans.filter((s) => s.service === 'dms-api' && s.scope.includes('instrumentation-pg'));
  expect(queries.some((s) => /insert into "debts"/i.test((s.attributes['db.statement'] ?? s.attributes['db.query.text'] ?? '') as string))).toBe(true);
  // The delivery: a span of the dispatcher in the request's trace, linked to the API span that recorded the event.
  const apiSpanIds = new Set(spans.filter((s) => s.service === 'dms-api').map((s) => s.spanId));
  expect(apiSpanIds.has(deliver!.parentSpanId)).toBe(true);
  expect(deliver!.links).toEqual([{ traceId, spanId: deliver!.parentSpanId }]);
  expect(deliver!.attributes).toMatchObject({ 'dms.event_id': delivered.id, 'http.response.status_code': 204 });
  // The outgoing POST: an undici client span under the delivery, whose id the receiver got.
  expect(post).toMatchObject({ service: 'dms-dispatcher', kind: 3, parentSpanId: deliver!.spanId });
  // No span of a probe or a scrape.
  expect(traces.spans.some((s) => /readyz|metrics/.test((s.attributes['url.path'] ?? s.attributes['http.target'] ?? s.name) as string))).toBe(false);

  // Log lines written while serving the request carry its trace id and a span id.
  await eventually(() => readFileSync(api.logFile, 'utf8').includes(`"trace_id":"${traceId}"`), 'a log line with the trace id');
  const lines = readFileSync(api.logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"trace_id":"${traceId}"`))
    .map((l) => JSON.parse(l) as { span_id?: string });
  expect(lines.every((l) => /^[0-9a-f]{16}$/.test(l.span_id ?? ''))).toBe(true);
  await dispatcher.stop();
});

test('without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported and a delivery carries no traceparent', async () => {
  const { tenant, t, parties } = await tenantWithEndpoint(SERVICE_ENV.API_AUDIENCE!);
  await services.start('dispatcher', { ...SERVICE_ENV, DISPATCH_TENANT_IDS: tenant.tenantId });
  const before = traces.spans.length;
  const debt = (
    await t
      .post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', breakdown: { principal: 700 } })
      .expect(201)
  ).body;
  await eventually(() => hooks.received.some((r) => r.event.data?.object?.id === debt.id), 'the debt.created delivery', 30_000);
  expect(hooks.received.find((r) => r.event.data?.object?.id === debt.id)!.traceparent).toBeUndefined();
  expect(traces.spans.slice(before).filter((s) => s.service !== 'dms-api')).toEqual([]);
});
