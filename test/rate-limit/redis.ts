/**
 * Whether the local Redis the shared-budget tests use is running (they are skipped without it).
 */
import { Socket } from 'node:net';

/** Address of the local Redis (`redis-server` on its default port). */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Resolves true when something accepts TCP connections at `url` within a second. */
export function canReachRedis(url = REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port), hostname, () => done(true));
  });
}
