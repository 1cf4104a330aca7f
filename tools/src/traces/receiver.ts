/**
 * A local OTLP/HTTP trace receiver (docs/api.md section 11, "Traces"): `POST /v1/traces` with an
 * `ExportTraceServiceRequest` in protobuf (`application/x-protobuf`) or JSON (`application/json`),
 * gzip or not, as OpenTelemetry SDKs and collectors send it. It keeps the decoded spans in memory
 * and hands each batch to `onSpans`. For `npm run traces` and the tests; a real deployment points
 * `OTEL_EXPORTER_OTLP_ENDPOINT` at a collector instead.
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import getRawBody from 'raw-body';
import { decodeTracesJson, decodeTracesProtobuf, type ReceivedSpan } from './otlp.js';

export type { ReceivedSpan };

/** A running receiver. */
export interface TraceReceiver {
  /** `http://host:port`, the value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

/** Largest export accepted, bytes (an SDK's batch is far smaller). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Listens on `host:port` (port 0: any free one).
 * @param onSpans called with each export's spans, in arrival order
 */
export function startTraceReceiver(opts: { port?: number; host?: string; onSpans?: (spans: ReceivedSpan[]) => void } = {}): Promise<TraceReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/traces') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"only POST /v1/traces"}');
        return;
      }
      try {
        let body = await getRawBody(req, { limit: MAX_BODY_BYTES });
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = (req.headers['content-type'] ?? '').startsWith('application/json');
        const batch = json ? decodeTracesJson(body.toString('utf8')) : decodeTracesProtobuf(body);
        spans.push(...batch);
        opts.onSpans?.(batch);
        // An empty ExportTraceServiceResponse: full success.
        if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (err) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }));
      }
    })();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
        spans,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
