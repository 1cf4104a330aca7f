/**
 * `npm run config-table`: prints the Markdown table of every setting of every service (from the
 * envalid specs), then the table of the local commands' own settings (the embedded PostgreSQL
 * ports), as README.md's "Configuration" shows them. With `--write`, replaces the services' table
 * in README.md's "Configuration" and between the `settings-table` markers of deploy/README.md
 * instead; the tests fail when either README and the specs differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';
import { loadServiceSettings, localSettingsTable, settingsTable } from './settings.js';

const table = settingsTable(await loadServiceSettings());

/** Replaces the first match of `pattern` in the repository file `path` by `replacement`; throws when there is none. */
function replaceIn(path: string, pattern: RegExp, replacement: string): void {
  const file = join(REPO_ROOT, path);
  const text = readFileSync(file, 'utf8');
  if (!pattern.test(text)) throw new Error(`${file} has no settings table to replace`);
  writeFileSync(
    file,
    text.replace(pattern, () => replacement),
  );
}

if (process.argv.includes('--write')) {
  replaceIn(
    'deploy/README.md',
    /<!-- settings-table:start -->\n[\s\S]*?<!-- settings-table:end -->/,
    `<!-- settings-table:start -->\n${table}<!-- settings-table:end -->`,
  );
  // README.md: the services' table is the block of lines from its header to the first blank line.
  replaceIn('README.md', /^\| variable \| services \| default \| meaning \|\n(?:\|.*\n)*/m, table);
} else {
  process.stdout.write(`${table}\n${localSettingsTable()}`);
}
