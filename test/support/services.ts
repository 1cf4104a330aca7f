/**
 * Extra service processes a test file starts itself. A test that fails before it stops one would
 * leave it running: a child process whose output pipes keep the Jest worker from exiting, and a
 * server holding its port and database connections after the run. `stopAll` in `afterAll` ends
 * whatever is still running.
 */
import { startService, type RunningService, type ServiceName } from '@dms/tools/processes';

/** Starts services like `startService` (logs to a file) and remembers them for `stopAll`. */
export function serviceSet() {
  const started: RunningService[] = [];
  return {
    /** `startService(name, env)` on a free port; `processGroup` as in `startService`. */
    start: async (name: ServiceName, env: Record<string, string>, options: { processGroup?: boolean } = {}): Promise<RunningService> => {
      const service = await startService(name, env, undefined, 'file', options);
      started.push(service);
      return service;
    },
    /** SIGKILLs every started service that has not exited yet; resolves once they all exited. */
    stopAll: () => Promise.all(started.map((s) => s.stop('SIGKILL'))),
  };
}
