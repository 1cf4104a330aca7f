/**
 * Webhook delivery (docs/api.md section 7), the one module both the API and the dispatcher use:
 * the delivery state machine (states.ts), the retry schedule (schedule.ts), the queue statements
 * (queue.ts for dispatchers, endpoint-moves.ts for the API) and stored rows (rows.ts), the event renderer (render.ts) and the supported endpoint
 * versions (versions.ts).
 */
export * from './states.js';
export * from './schedule.js';
export * from './queue.js';
export * from './endpoint-moves.js';
export * from './rows.js';
export * from './render.js';
export * from './versions.js';
export * from './version-changes.js';
export * from './signatures.js';
