/**
 * The unit project needs no build (jest.config.js): every workspace package a unit test imports
 * resolves, through the project's `moduleNameMapper`, to a TypeScript source that exists, never
 * to a package's built `dist` (which a fresh clone does not have).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from '@jest/globals';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `@dms/…` specifiers the unit tests (and their helpers) import, with the file importing each. */
function workspaceImports(): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:from |import\()'(@dms\/[^']+)'/g))
          found.push({ file: path.slice(ROOT.length + 1), specifier: m[1]! });
      }
    }
  };
  walk(join(ROOT, 'test', 'unit'));
  return found;
}

test('every workspace import of a unit test maps to a source file', async () => {
  const config = (await import(pathToFileURL(join(ROOT, 'jest.config.js')).href)).default as {
    projects: Array<{ displayName: string; moduleNameMapper: Record<string, string> }>;
  };
  const mapper = Object.entries(config.projects.find((p) => p.displayName === 'unit')!.moduleNameMapper).map(([re, to]) => [new RegExp(re), to] as const);
  const imports = workspaceImports();
  expect(imports.length).toBeGreaterThan(10);
  const unresolved = imports.filter(({ specifier }) => {
    const rule = mapper.find(([re]) => re.test(specifier));
    if (!rule) return true;
    const path = specifier.replace(rule[0], rule[1]).replace('<rootDir>', ROOT);
    return path.includes('/dist/') || !(existsSync(path) || existsSync(`${path}.ts`));
  });
  expect(unresolved).toEqual([]);
});
