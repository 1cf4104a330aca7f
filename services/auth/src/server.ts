/**
 * Entry point of the issuer (`npm start -w services/auth`): configuration from the environment,
 * then serve until SIGTERM.
 */
import { runHttpService } from '@dms/lifecycle';
import { loadAuthConfig } from './config.js';

const cfg = loadAuthConfig();
// Loaded after validation: importing oidc-provider may print warnings of its own, and a bad
// setting must stop the process with its one config-error line alone.
const { buildIssuer } = await import('./issuer.js');
const issuer = await buildIssuer(cfg);
await runHttpService({
  server: issuer.server,
  port: cfg.PORT,
  log: issuer.log,
  graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
  onDrain: () => issuer.drain(),
  close: [issuer],
});
