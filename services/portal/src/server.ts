/**
 * Process entry point of the portal (`npm start -w services/portal`): starts traces when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (@dms/telemetry), then loads the service (main.ts).
 */
import { startTelemetry } from '@dms/telemetry/start';

await startTelemetry('portal');
await import('./main.js');
