/**
 * Runs the real admin CLI (services/auth/dist/cli/admin.js) against the test database and issuer
 * settings, as an operator would with `npm run -s admin -- …`.
 */
import { runScript, type CliRun } from './run-script.js';

export type { CliRun };

/** Runs `admin <args…>` with the services' environment and collects its output. */
export function runAdmin(args: string[]): Promise<CliRun> {
  return runScript('services/auth/dist/cli/admin.js', args, { LOG_LEVEL: 'silent' });
}

/**
 * Runs a command that must succeed and print exactly one JSON object (one line) on stdout.
 * @throws when it exits non-zero or stdout is not a single JSON object
 */
export async function adminJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await runAdmin(args);
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  const lines = run.stdout.split('\n').filter(Boolean);
  if (lines.length !== 1) throw new Error(`admin ${args.join(' ')} printed ${lines.length} lines: ${run.stdout}`);
  const value = JSON.parse(lines[0]!) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`not a JSON object: ${lines[0]}`);
  return value as T;
}
