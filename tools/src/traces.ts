/**
 * `npm run traces`: a local OTLP/HTTP receiver on `TRACES_PORT` (default 4318, OTLP's HTTP port)
 * that prints one line per span received (docs/api.md section 11 and README "How to see a trace"):
 * trace id, service, span name, duration, and the parent span id. Start the services with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318` to send their spans here. Stops on SIGINT/SIGTERM.
 */
import { startTraceReceiver, type ReceivedSpan } from './traces/receiver.js';

const port = Number(process.env.TRACES_PORT ?? 4318);

/** `<trace id> <service> <name> <ms> ms [child of <parent>]`. */
function line(s: ReceivedSpan): string {
  const ms = Number(s.endUnixNano - s.startUnixNano) / 1e6;
  const parent = s.parentSpanId ? ` child of ${s.parentSpanId}` : ' root';
  return `${s.traceId} ${s.service} ${JSON.stringify(s.name)} ${ms.toFixed(1)} ms span ${s.spanId}${parent}`;
}

const receiver = await startTraceReceiver({
  port,
  host: process.env.TRACES_HOST ?? '127.0.0.1',
  onSpans: (spans) => spans.forEach((s) => console.log(line(s))),
});
console.log(`traces: OTLP/HTTP receiver on ${receiver.url}/v1/traces (set OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url})`);
const stop = () => void receiver.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
