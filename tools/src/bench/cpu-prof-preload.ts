/**
 * `node --import` preload that records a V8 CPU profile of the whole process and writes it as
 * `<BENCH_CPU_PROF_DIR>/<service>-<pid>.cpuprofile` when the process exits. It replaces
 * `--cpu-prof`, which Node does not accept in NODE_OPTIONS (the only way to pass flags through
 * startService). Same sampler, same file format (readable in Chrome DevTools).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, dirname, join } from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  // Same-thread sessions dispatch synchronously, so the profile is complete inside 'exit'.
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      const service = basename(dirname(dirname(process.argv[1] ?? 'node')));
      writeFileSync(join(dir, `${service}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
