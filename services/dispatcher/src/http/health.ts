/**
 * The dispatcher's only HTTP surface (docs/api.md section 1): `/healthz`, `/readyz` and
 * `/metrics`, served by the probe server shared with the worker (libs/metrics).
 */
export { createProbeServer as createHealthServer } from '@dms/metrics';
