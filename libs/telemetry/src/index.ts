/**
 * Traces (docs/api.md section 11, "Traces"): the small part of OpenTelemetry the code calls, on
 * `@opentelemetry/api` alone. Without a tracer provider (`OTEL_EXPORTER_OTLP_ENDPOINT` unset, so
 * `startTelemetry` of `@dms/telemetry/start` installed none) every function here is a no-op that
 * returns at once: no span is made, nothing is stored or sent.
 *
 * The W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/) is the one form a
 * trace context takes between processes: stored with an outbox event, sent with a delivery.
 */
import { SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

export { SpanKind };

/** The tracer of this code (instrumentations have their own). */
const tracer = () => trace.getTracer('dms');

/** A valid W3C `traceparent`: version 00, 32 hex trace id, 16 hex parent id, 2 hex flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * `trace_id` and `span_id` of the active span, for a log line (the names OpenTelemetry's log data
 * model gives them), or `{}` when there is none.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** The `traceparent` of the active span (e.g. the request a write runs in), or null when none is recorded. */
export function currentTraceparent(): string | null {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The trace context `traceparent` names, or undefined when it is missing or malformed. */
function remoteContext(traceparent: string | null | undefined): Context | undefined {
  if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
  const ctx = propagation.extract(context.active(), { traceparent });
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/**
 * Runs `fn` in a new span `name` whose parent is the trace context `traceparent` names (the request
 * that caused this work, stored with its outbox event) and which also links to it; a root span when
 * `traceparent` is null or malformed. The span ends when `fn` settles; an error thrown marks it
 * failed and is rethrown.
 * @param attributes span attributes (ids of the objects worked on; never a secret)
 */
export async function inSpanFollowing<T>(
  name: string,
  traceparent: string | null | undefined,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const parent = remoteContext(traceparent);
  const links: Link[] = [];
  const linked = parent && trace.getSpanContext(parent);
  if (linked) links.push({ context: linked });
  return tracer().startActiveSpan(name, { kind, attributes, links }, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The `traceparent` header to add to an outgoing request by hand: none while a span is recorded
 * here (the undici and http instrumentations then send the outgoing request's own, a child of it),
 * else `stored` (the context saved with the event, so that a receiver still joins the trace of the
 * request that caused it when only the API is traced).
 */
export function forwardedTraceparent(stored: string | null | undefined): string | undefined {
  if (trace.getActiveSpan()?.isRecording()) return undefined;
  return stored && TRACEPARENT.test(stored) ? stored : undefined;
}
