/**
 * Decoding an OTLP/HTTP trace export (`ExportTraceServiceRequest` of
 * opentelemetry/proto/collector/trace/v1, in protobuf or in OTLP's JSON encoding) into flat spans.
 * Only what reading a trace needs is kept: ids, names, kind, times, attributes, links, status.
 */
import { bytesOf, fixed64Of, readFields, stringOf, varintOf, type WireField } from './protobuf.js';

/** One span, with the `service.name` of the process that made it. */
export interface ReceivedSpan {
  service: string;
  /** Instrumentation scope, e.g. `@opentelemetry/instrumentation-pg`. */
  scope: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startUnixNano: bigint;
  endUnixNano: bigint;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

const hex = (b: Buffer | undefined) => (b ? b.toString('hex') : '');

/** A string or number as text; anything else ''. */
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? v.toString() : '');

/** AnyValue (1 string, 2 bool, 3 int, 4 double, 5 array, 6 kvlist, 7 bytes). */
function anyValue(buf: Buffer): unknown {
  const f = readFields(buf)[0];
  if (!f) return null;
  switch (f.field) {
    case 1:
      return (f.value as Buffer).toString('utf8');
    case 2:
      return (f.value as bigint) !== 0n;
    case 3: {
      const v = BigInt.asIntN(64, f.value as bigint);
      return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
    }
    case 4:
      return (f.value as Buffer).readDoubleLE(0);
    case 5:
      return bytesOf(readFields(f.value as Buffer), 1).map(anyValue);
    case 6:
      return keyValues(readFields(f.value as Buffer), 1);
    default:
      return hex(f.value as Buffer);
  }
}

/** Repeated KeyValue (1 key, 2 value) in field `n`, as an object. */
function keyValues(fields: WireField[], n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of bytesOf(fields, n)) {
    const f = readFields(kv);
    out[stringOf(f, 1)] = bytesOf(f, 2)[0] ? anyValue(bytesOf(f, 2)[0]!) : null;
  }
  return out;
}

/**
 * The spans of a protobuf `ExportTraceServiceRequest`.
 * @throws Error on a malformed message
 */
export function decodeTracesProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of bytesOf(readFields(body), 1)) {
    const rsFields = readFields(rs);
    const resource = bytesOf(rsFields, 1)[0];
    const service = text((resource ? keyValues(readFields(resource), 1) : {})['service.name']);
    for (const ss of bytesOf(rsFields, 2)) {
      const ssFields = readFields(ss);
      const scopeMsg = bytesOf(ssFields, 1)[0];
      const scope = scopeMsg ? stringOf(readFields(scopeMsg), 1) : '';
      for (const sp of bytesOf(ssFields, 2)) {
        const f = readFields(sp);
        const status = bytesOf(f, 15)[0];
        spans.push({
          service,
          scope,
          traceId: hex(bytesOf(f, 1)[0]),
          spanId: hex(bytesOf(f, 2)[0]),
          parentSpanId: hex(bytesOf(f, 4)[0]),
          name: stringOf(f, 5),
          kind: Number(varintOf(f, 6)),
          startUnixNano: fixed64Of(f, 7),
          endUnixNano: fixed64Of(f, 8),
          attributes: keyValues(f, 9),
          links: bytesOf(f, 13).map((l) => {
            const lf = readFields(l);
            return { traceId: hex(bytesOf(lf, 1)[0]), spanId: hex(bytesOf(lf, 2)[0]) };
          }),
          statusCode: status ? Number(varintOf(readFields(status), 3)) : 0,
        });
      }
    }
  }
  return spans;
}

type JsonAny = Record<string, unknown>;
interface JsonKeyValue {
  key: string;
  value?: JsonAny;
}

/** An AnyValue of OTLP/JSON (`{"stringValue": …}`, `{"intValue": "42"}`, …). */
function jsonAnyValue(v: JsonAny | undefined): unknown {
  if (!v) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return ((v.arrayValue as { values?: JsonAny[] }).values ?? []).map(jsonAnyValue);
  if ('kvlistValue' in v) return jsonKeyValues((v.kvlistValue as { values?: JsonKeyValue[] }).values);
  return null;
}

function jsonKeyValues(kvs: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, jsonAnyValue(kv.value)]));
}

/** Trace and span ids are hex in OTLP/JSON (not base64 as in protobuf's JSON mapping). */
const jsonId = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

/**
 * The spans of an OTLP/JSON `ExportTraceServiceRequest`.
 * @throws Error when `body` is not JSON
 */
export function decodeTracesJson(body: string): ReceivedSpan[] {
  const req = JSON.parse(body) as { resourceSpans?: JsonAny[] };
  const spans: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const service = text(jsonKeyValues((rs.resource as { attributes?: JsonKeyValue[] } | undefined)?.attributes)['service.name']);
    for (const ss of (rs.scopeSpans as JsonAny[] | undefined) ?? []) {
      const scope = String((ss.scope as { name?: string } | undefined)?.name ?? '');
      for (const s of (ss.spans as JsonAny[] | undefined) ?? []) {
        spans.push({
          service,
          scope,
          traceId: jsonId(s.traceId),
          spanId: jsonId(s.spanId),
          parentSpanId: jsonId(s.parentSpanId),
          name: text(s.name),
          kind: Number(s.kind ?? 0),
          startUnixNano: BigInt(text(s.startTimeUnixNano) || 0),
          endUnixNano: BigInt(text(s.endTimeUnixNano) || 0),
          attributes: jsonKeyValues(s.attributes as JsonKeyValue[] | undefined),
          links: ((s.links as JsonAny[] | undefined) ?? []).map((l) => ({ traceId: jsonId(l.traceId), spanId: jsonId(l.spanId) })),
          statusCode: Number((s.status as { code?: number } | undefined)?.code ?? 0),
        });
      }
    }
  }
  return spans;
}
