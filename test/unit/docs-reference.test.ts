/**
 * docs/api.md and the code stay in step (as fastify's errors test keeps its registry, its docs and
 * its types together): every file of the repository the reference names exists; the error table
 * lists exactly the registry's codes with their statuses; every event type it names exists and
 * every event type the resources declare is documented; every id prefix is documented. The
 * comments of the code, tests, scripts and deployment files name only files that exist too, so a
 * moved file fails here until the docstrings citing it follow.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import ts from 'typescript';
import { ERROR_CODES } from '../../libs/errors/src/index.js';
import { EVENT_TYPES, ID_PREFIXES } from '../../libs/domain/src/registry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
/** A path from the repository's root, as the reference and the comments write them. */
const REPO_PATH = /(?<![\w/.@-])((?:libs|services|tools|scripts|deploy|docs|test|clients|samples)\/[A-Za-z0-9_./-]*[A-Za-z0-9_/-])/g;
const FROM_ROOT = /^(?:libs|services|tools|scripts|deploy|docs|test|clients|samples)\//;

describe('docs/api.md names only what exists', () => {
  test('every repository path it names is in the repository', () => {
    const paths = [...DOC.matchAll(REPO_PATH)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  test('the error table lists every registered code once, with its status and type, and nothing else', () => {
    const rows = [...DOC.matchAll(/^\| (\d{3}) \| ([a-z_]+) \| `([a-z_]+)` \|/gm)].map((m) => ({ status: Number(m[1]), type: m[2], code: m[3]! }));
    const documented = Object.fromEntries(rows.map((r) => [r.code, { status: r.status, type: r.type }]));
    expect(rows.length).toBe(new Set(rows.map((r) => r.code)).size);
    const registered = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, { status: e.status, type: e.type }]));
    expect(documented).toEqual(registered);
  });

  test('every event type its event tables name is one the resources declare, and every declared type is documented', () => {
    // Event tables are those headed `| type | …`; the types stand in the first cell of each row.
    const firstCells: string[] = [];
    let header: string | undefined;
    for (const line of DOC.split('\n')) {
      if (!line.startsWith('|')) header = undefined;
      else if (header === undefined) header = line;
      else if (header.startsWith('| type |')) firstCells.push(line.split('|')[1] ?? '');
    }
    const inTables = firstCells.flatMap((cell) => [...cell.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((m) => m[1]!));
    expect(inTables.length).toBeGreaterThan(10);
    expect(inTables.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))).toEqual([]);
    expect(EVENT_TYPES.filter((t) => !DOC.includes(`\`${t}\``))).toEqual([]);
  });

  test('every id prefix the resources declare is documented', () => {
    expect(Object.values(ID_PREFIXES).filter((p) => !DOC.includes(`\`${p}_\``))).toEqual([]);
  });
});

/** Source, script and deployment files whose comments are read (builds, dependencies and generated code aside). */
function commentedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (['node_modules', 'dist', 'generated', '.data'].includes(name)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|sh|ya?ml)$|^Dockerfile|^run$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const top of ['libs', 'services', 'tools', 'scripts', 'deploy', 'test', 'clients', '.ci']) if (existsSync(join(ROOT, top))) walk(join(ROOT, top));
  return out;
}

/** The comments of a file: TypeScript's scanner for code, `#` lines for shell, YAML and Dockerfiles. */
function commentsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  if (!/\.(ts|mts|mjs|js)$/.test(path)) return text.split('\n').filter((l) => /^\s*#/.test(l));
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) out.push(scanner.getTokenText());
  }
  return out;
}

/** Directories a path relative to a package may start from: the package sources (`src` of each workspace). */
const PACKAGE_SOURCES = ['libs', 'services']
  .flatMap((top) => readdirSync(join(ROOT, top)).map((name) => join(ROOT, top, name, 'src')))
  .concat(join(ROOT, 'tools', 'src'))
  .filter((dir) => existsSync(dir));

/**
 * What a comment of `file` names that does not exist: a repository path (a built `dist/…js` counts
 * as its `src/…ts`; a dot file such as `.env`, made by a script, is not looked for); a relative
 * path (`kernel/owned.ts`) found neither from a folder holding `file` nor from a package's
 * sources; a bare TypeScript file name that no file of the repository has.
 */
function missingIn(file: string, comment: string, names: Set<string>): string[] {
  const missing: string[] = [];
  const exists = (p: string) => existsSync(p) || existsSync(p.replace('/dist/', '/src/').replace(/\.js$/, '.ts'));
  for (const m of comment.matchAll(REPO_PATH)) if (!basename(m[1]!).startsWith('.') && !exists(join(ROOT, m[1]!))) missing.push(m[1]!);
  for (const m of comment.matchAll(/(?<![\w/.@<>{}*-])((?:[A-Za-z0-9_-]+\/)+[A-Za-z0-9_.-]+\.(?:ts|mjs|sh|ya?ml))(?![\w/])/g)) {
    const p = m[1]!;
    if (FROM_ROOT.test(p)) continue;
    const folders: string[] = [];
    for (let d = dirname(file); d.startsWith(ROOT) && d !== ROOT; d = dirname(d)) folders.push(d);
    if (![...folders, ...PACKAGE_SOURCES].some((d) => exists(join(d, p)))) missing.push(p);
  }
  for (const m of comment.matchAll(/(?<![\w/.@-])([A-Za-z0-9_-]+\.ts)(?![\w/])/g)) if (!names.has(m[1]!)) missing.push(m[1]!);
  return missing;
}

describe('comments name only files that exist', () => {
  test('every file a comment of the code, tests, scripts or deployment names is in the repository', () => {
    const files = commentedFiles();
    const names = new Set(files.map((f) => basename(f)));
    expect(files.length).toBeGreaterThan(300);
    const missing = files.flatMap((file) => commentsOf(file).flatMap((c) => missingIn(file, c, names).map((p) => `${relative(ROOT, file)}: ${p}`)));
    expect(missing).toEqual([]);
  });

  test('the check finds a moved file in each form a comment names it', () => {
    const file = join(ROOT, 'libs', 'domain', 'src', 'debts', 'store.ts');
    const names = new Set(['store.ts']);
    expect(missingIn(file, '/** as libs/domain/src/db/owned.ts, db/owned.ts and owned-rows.ts do */', names)).toEqual([
      'libs/domain/src/db/owned.ts',
      'db/owned.ts',
      'owned-rows.ts',
    ]);
    expect(missingIn(file, '/** as libs/domain/src/kernel/owned.ts, kernel/owned.ts and store.ts do */', names)).toEqual([]);
  });
});
