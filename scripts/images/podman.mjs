/**
 * Thin wrappers around the podman CLI for scripts/images/verify.mjs. Every container runs on the
 * host network (the services listen on free non-default ports) and locked down as in
 * docker-compose.yml: read-only root filesystem, /tmp on a tmpfs, all capabilities dropped,
 * no-new-privileges. runc and the ulimits come from CONTAINERS_CONF (set by images-verify.sh).
 */
import { execFile } from 'node:child_process';

/** Names of the containers started here, removed by `removeAll`. */
const started = new Set();

/**
 * Runs `podman <args>`; resolves with its exit code and output (never rejects on a non-zero exit).
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, timeoutMs?: number }} [opts] env: added to podman's own
 *   environment, so `-e NAME` passes a value without it appearing on a command line
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export function podman(args, opts = {}) {
  return new Promise((resolve) => {
    execFile('podman', args, { env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * Like `podman` but throws unless the exit code is 0.
 * @returns {Promise<string>} stdout
 */
export async function podmanOk(args, opts) {
  const r = await podman(args, opts);
  if (r.code !== 0) throw new Error(`podman ${args.slice(0, 3).join(' ')} … exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return r.stdout;
}

/** The `podman run` options shared by every container: host network and the Compose lockdown. */
function runOptions(env) {
  return [
    '--network',
    'host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    // Healthchecks are run on demand (`podman healthcheck run`): no systemd timers here.
    '--health-interval',
    'disable',
    ...Object.keys(env).flatMap((k) => ['-e', k]),
  ];
}

/**
 * Starts a detached container.
 * @param {string} name container name
 * @param {string} image
 * @param {Record<string, string>} env its environment (values stay off the command line)
 * @param {string[]} [command] overrides the image's CMD
 */
export async function startContainer(name, image, env, command = []) {
  started.add(name);
  await podmanOk(['run', '-d', '--name', name, ...runOptions(env), image, ...command], { env });
}

/**
 * Runs a one-shot container to completion and removes it.
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export function runOnce(image, env, command = []) {
  return podman(['run', '--rm', ...runOptions(env), image, ...command], { env });
}

/** Sends `signal` to a container's main process. */
export const signal = (name, sig) => podmanOk(['kill', '--signal', sig, name]);

/** Waits for a container to exit; resolves with its exit code. */
export async function waitExit(name, timeoutMs) {
  return Number((await podmanOk(['wait', name], { timeoutMs })).trim());
}

/** A container's combined log output. */
export async function logs(name) {
  const r = await podman(['logs', name]);
  return r.stdout + r.stderr;
}

/** Runs the image's HEALTHCHECK once inside the container; resolves with podman's exit code (0 = healthy). */
export async function healthcheck(name) {
  return (await podman(['healthcheck', 'run', name])).code;
}

/** Removes every container started by `startContainer`, running or not. */
export async function removeAll() {
  for (const name of started) await podman(['rm', '-f', '-t', '0', name]);
  started.clear();
}

/**
 * Image metadata: size in bytes, layer count, configured user, HEALTHCHECK and history lines.
 * @returns {Promise<{ size: number, layers: number, user: string, healthcheck: string[] | undefined, history: string[] }>}
 */
export async function inspectImage(image) {
  const [info] = JSON.parse(await podmanOk(['image', 'inspect', image]));
  const history = (await podmanOk(['history', '--no-trunc', '--format', '{{.CreatedBy}}', image])).split('\n').filter(Boolean);
  return { size: info.Size, layers: info.RootFS.Layers.length, user: info.User ?? info.Config.User ?? '', healthcheck: info.Healthcheck?.Test, history };
}
