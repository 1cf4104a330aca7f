/**
 * Process entry point of the issuer (`npm start -w services/auth`): starts traces when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (@dms/telemetry, docs/api.md section 11), then loads the
 * service (main.ts), so that the modules traces instrument load after their hooks.
 */
import { startTelemetry } from '@dms/telemetry/start';

await startTelemetry('auth');
await import('./main.js');
