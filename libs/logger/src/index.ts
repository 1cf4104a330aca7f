/**
 * Structured JSON logging (pino) shared by every service. Known secret-bearing fields are redacted
 * at the logger, so a careless `log.info({ req })` cannot leak a token or a client secret.
 */
import { pino, type Logger } from 'pino';
import { traceFields } from '@dms/telemetry';

export type { Logger };

/** Paths pino replaces with `[redacted]` wherever they appear in a log object. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'client_secret',
  'signing_secret',
  'secret',
  'password',
  'access_token',
  'token',
  '*.client_secret',
  '*.signing_secret',
  '*.access_token',
  '*.password',
  'credentials.oauth2.client_secret',
  '*.credentials.oauth2.client_secret',
];

/** Bytes a log destination buffers before writing them out in one `write(2)`. */
const LOG_BUFFER_BYTES = 4096;
/** Longest a line waits in that buffer, milliseconds (an idle service's last lines still show at once). */
const LOG_FLUSH_MS = 200;

/**
 * Creates the process logger, writing JSON lines to stdout through pino's asynchronous destination
 * (sonic-boom, `sync: false`): lines are buffered and written together, up to LOG_BUFFER_BYTES at
 * a time and at least every LOG_FLUSH_MS, instead of one blocking `write(2)` per line on the
 * request path. Nothing is lost on a normal exit: pino registers the destination to be flushed
 * synchronously on the process's `exit` event, which every shutdown path reaches (`runHttpService`
 * of @dms/lifecycle ends with `process.exit` after SIGTERM/SIGINT, as does its hard-exit timer, and
 * an uncaught exception exits the same way). Only a SIGKILL can lose the lines still buffered.
 * Each line written inside a traced span carries its `trace_id` and `span_id` (docs/api.md section 11).
 * @param service name written in every line (`service` field)
 * @param level pino level, default from `LOG_LEVEL` or `info`
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const destination = pino.destination({ dest: process.stdout.fd, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => {
    if (!(destination as { destroyed?: boolean }).destroyed) destination.flush();
  }, LOG_FLUSH_MS).unref();
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: traceFields,
    },
    destination,
  );
}
