/**
 * `npm run config-table`: prints the Markdown table of every setting of every service (from the
 * envalid specs), then the table of the local commands' own settings (the embedded PostgreSQL
 * ports), as README.md's "Configuration" shows them. With `--write`, replaces the services' table
 * between the `settings-table` markers of deploy/README.md instead; the tests fail when either
 * README and the specs differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';
import { loadServiceSettings, localSettingsTable, settingsTable } from './settings.js';

const table = settingsTable(await loadServiceSettings());
if (process.argv.includes('--write')) {
  const file = join(REPO_ROOT, 'deploy', 'README.md');
  const readme = readFileSync(file, 'utf8');
  const markers = /<!-- settings-table:start -->\n[\s\S]*?<!-- settings-table:end -->/;
  if (!markers.test(readme)) throw new Error(`${file} has no settings-table markers`);
  writeFileSync(
    file,
    readme.replace(markers, () => `<!-- settings-table:start -->\n${table}<!-- settings-table:end -->`),
  );
} else {
  process.stdout.write(`${table}\n${localSettingsTable()}`);
}
