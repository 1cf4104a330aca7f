/**
 * Jest runs the TypeScript tests as ESM (ts-jest, transpile only; `npm test` type-checks them
 * first), in two projects:
 *
 * - `unit`: pure modules (test/unit), imported from their `src` .ts files. No global setup, no
 *   database, no services: `npm run test:unit` takes seconds and needs no build.
 * - `http`: everything else. Tests talk HTTP to real services over a real PostgreSQL, started once
 *   by the project's global setup (test/support/global-setup.ts). Jest runs a project's global
 *   setup only when at least one of its tests is selected, so a unit-only run starts nothing.
 *
 * `npm test` runs both; `maxWorkers` and `testTimeout` are run-wide options, so they stay here.
 * `npm run test:unit -- <path pattern>` narrows the unit run (the script ends with `--` because
 * `--selectProjects` would otherwise take the pattern as a second project name).
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * Settings both projects share: ESM TypeScript through ts-jest, `.js` import specifiers. The test
 * tsconfig sets `isolatedModules`, so ts-jest transpiles file by file (TypeScript's
 * `transpileModule`) instead of holding a language service per worker: on a cold cache a worker that
 * loads the domain library then takes about 200 MB and 30 s instead of 780 MB and 240 s (2 cores
 * under load). Types are still checked, once, by `tsc -p test --noEmit` in `npm test`.
 */
const typescriptEsm = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/test/tsconfig.json', diagnostics: false }],
  },
};

/**
 * Where the unit project finds a workspace package's module: every entry of each package's
 * `exports` (libs, services, tools), pointed from its built `dist/….js` at the `src/….ts` it is
 * built from, so a unit test never needs a prior build. A `*` entry maps the rest of the path.
 */
function sourcesOfWorkspaces() {
  const mapper = {};
  for (const top of ['libs', 'services', 'tools']) {
    const dirs = top === 'tools' ? ['tools'] : readdirSync(join(ROOT, top)).map((name) => `${top}/${name}`);
    for (const dir of dirs) {
      if (!existsSync(join(ROOT, dir, 'package.json'))) continue;
      const { name, exports = {} } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
      for (const [entry, target] of Object.entries(exports)) {
        const specifier = `${name}${entry.slice(1)}`.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '(.+?)(?:\\.js)?');
        const source = target
          .replace(/^\.\/dist\//, `<rootDir>/${dir}/src/`)
          .replace(/\.js$/, '.ts')
          .replace('*', '$1');
        mapper[`^${specifier}$`] = source;
      }
    }
  }
  return mapper;
}

export default {
  // A hang guard, not a speed check (speed belongs to `npm run bench`): generous enough that a test
  // run beside a CPU hog (`npm run test:hog`, one busy process per core) is only slower.
  testTimeout: 120_000,
  maxWorkers: 2,
  projects: [
    {
      ...typescriptEsm,
      displayName: 'unit',
      // Workspace libraries resolve to their sources rather than their built `dist`.
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', ...sourcesOfWorkspaces() },
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      ...typescriptEsm,
      displayName: 'http',
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/personal-box.ts'],
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
