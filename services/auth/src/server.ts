/**
 * Entry point of the issuer (`npm start -w services/auth`): configuration from the environment,
 * then serve until SIGTERM.
 */
import { runHttpService } from '@dms/lifecycle';
import { loadAuthConfig } from './config.js';
import { buildIssuer } from './issuer.js';

const cfg = loadAuthConfig();
const issuer = await buildIssuer(cfg);
await runHttpService({
  server: issuer.server,
  port: cfg.PORT,
  log: issuer.log,
  graceSeconds: cfg.SHUTDOWN_GRACE_SECONDS,
  onDrain: () => issuer.drain(),
  onShutdown: () => issuer.close(),
});
