/**
 * Starting traces in a service process (docs/api.md section 11, "Traces"). Import this module
 * first in an entry point and call `startTelemetry` before importing the rest of the service, so
 * that the instrumented modules (node:http, express, pg, undici) load after their hooks exist.
 * When `OTEL_EXPORTER_OTLP_ENDPOINT` is unset nothing is loaded or started at all.
 */

/**
 * Starts the OpenTelemetry SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: spans of incoming and
 * outgoing HTTP, express routes, pg queries and undici requests, exported by OTLP/HTTP (protobuf)
 * to `<endpoint>/v1/traces`, batched. The standard `OTEL_*` variables apply (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER`…).
 * @param service the default `service.name` (`dms-<service>` unless OTEL_SERVICE_NAME is set)
 * @returns whether traces are exported
 */
export async function startTelemetry(service: string): Promise<boolean> {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  const { startSdk } = await import('./sdk.js');
  await startSdk(`dms-${service}`);
  return true;
}
