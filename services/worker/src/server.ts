/**
 * Process entry point of the worker (`npm start -w services/worker`): starts traces when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (@dms/telemetry, docs/api.md section 11), then loads the
 * service (main.ts), so that the modules traces instrument load after their hooks.
 */
import { startTelemetry } from '@dms/telemetry/start';

await startTelemetry('worker');
await import('./main.js');
