/**
 * Structured JSON logging (pino) shared by every service. Known secret-bearing fields are redacted
 * at the logger, so a careless `log.info({ req })` cannot leak a token or a client secret.
 */
import { pino, type Logger } from 'pino';

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

/**
 * Creates the process logger.
 * @param service name written in every line (`service` field)
 * @param level pino level, default from `LOG_LEVEL` or `info`
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
