/**
 * `npm run test:hog`: runs `npm test` three times in a row beside a CPU hog (one busy process per
 * core, at normal priority), so a test that passes only on an idle machine fails here. Prints each
 * run's duration and exits with the first failing run's code; the hog is stopped either way.
 * Options (environment): TEST_HOG_RUNS (default 3), TEST_HOG_PROCESSES (default: the core count).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const runs = Number(process.env.TEST_HOG_RUNS ?? 3);
const processes = Number(process.env.TEST_HOG_PROCESSES ?? availableParallelism());

/** One busy loop per core, each a child node process that spins until killed. */
const hogs = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopHogs = () => hogs.forEach((h) => h.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(signal, () => process.exit(130));

/**
 * Runs `npm test` once with inherited output.
 * @returns its exit code (1 when it was killed by a signal)
 */
function npmTest() {
  return new Promise((resolve) => {
    const child = spawn('npm', ['test'], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

console.log(`test:hog: ${processes} busy process(es) started; ${runs} runs of npm test`);
for (let i = 1; i <= runs; i += 1) {
  const started = Date.now();
  const code = await npmTest();
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`test:hog: run ${i} of ${runs}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s`);
  if (code !== 0) process.exit(code);
}
console.log(`test:hog: ${runs} of ${runs} runs passed beside the hog`);
// The hogs' child handles keep the event loop alive: exit explicitly (the 'exit' handler stops them).
process.exit(0);
