/**
 * The OpenTelemetry SDK as the services run it (loaded only when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set, by `startTelemetry`): a Node tracer provider with W3C Trace Context propagation, a batch
 * processor exporting OTLP/HTTP protobuf, and the http, express, pg and undici instrumentations.
 * ES modules are instrumented through import-in-the-middle's loader hook, asked to wrap only the
 * modules an instrumentation hooks.
 */
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Paths whose requests make no span: probes and scrapes, many a minute, never interesting. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Installs the provider and instrumentations; spans still buffered are exported on SIGTERM/exit
 * through the provider's shutdown.
 * @param serviceName `service.name` unless `OTEL_SERVICE_NAME` says otherwise
 */
export async function startSdk(serviceName: string): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const detected = detectResources({ detectors: [envDetector, processDetector, hostDetector] });
  const resource = resourceFromAttributes({ 'service.name': serviceName }).merge(detected);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!) }),
      // Route handlers only: a span per middleware (a dozen a request) would bury the ones that matter.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  await waitForAllMessagesAcknowledged();
  // Export what is buffered before the process exits (the lifecycle's shutdown ends with exit).
  let flushed = false;
  const flush = () => {
    if (flushed) return;
    flushed = true;
    void provider.forceFlush().catch(() => {});
  };
  process.once('SIGTERM', flush);
  process.once('beforeExit', flush);
}
