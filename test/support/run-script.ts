/**
 * Runs one of the repository's compiled Node scripts (a CLI) as a child process with the
 * services' environment, the way an operator would, and collects its output.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '@dms/tools/processes';
import { SERVICE_ENV } from './harness.js';

/** What one script run produced: exit code (null when killed by a signal) and both streams. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <REPO_ROOT>/<script> <args…>` with `SERVICE_ENV` plus `env` and resolves when it exits.
 * @param script path relative to the repository root, e.g. `tools/dist/seed.js`
 * @throws (rejects) only when the process cannot be spawned; a non-zero exit resolves normally
 */
export function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, script), ...args], {
      env: { ...process.env, ...SERVICE_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
