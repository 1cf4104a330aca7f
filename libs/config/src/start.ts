/**
 * Settings read by `npm start` (tools/src/start.ts) alone, not by any service: where it runs each
 * service and the local mail and SMS stand-ins (README, "Configuration"). Validated with the
 * services' own validators, so `API_PORT=abc` is refused by `npm start` in the words a service uses
 * for `PORT=abc`.
 */
import { port } from './validators.js';

/** envalid spec of the ports `npm start` gives the services and the local stand-ins. */
export const startSpec = {
  AUTH_PORT: port({ default: 4000, desc: 'Port npm start gives the issuer (its PORT)' }),
  API_PORT: port({ default: 3000, desc: 'Port npm start gives the API (its PORT)' }),
  DISPATCHER_PORT: port({ default: 3001, desc: 'Port npm start gives the dispatcher (its PORT: health, readiness, metrics)' }),
  WORKER_PORT: port({ default: 3002, desc: 'Port npm start gives the worker (its PORT: health, readiness, metrics)' }),
  PORTAL_PORT: port({ default: 3005, desc: 'Port npm start gives the customer portal (its PORT)' }),
  LOCAL_SMTP_PORT: port({ default: 2525, desc: 'SMTP port of the local mail server npm start runs while SMTP_URL is unset' }),
  LOCAL_MAIL_WEB_PORT: port({ default: 3003, desc: 'Web page and JSON API of the local mail server' }),
  LOCAL_SMS_PORT: port({ default: 3004, desc: 'Port of the local SMS stand-in npm start runs while SMS_API_KEY is unset' }),
};
