/**
 * Every setting a service reads (its envalid spec, as built) is set for that service in
 * docker-compose.yml and in the production Kubernetes overlay, nothing else is set (a misspelt
 * variable would otherwise be ignored silently), the operator's configuration table is the one
 * generated from the specs, and no secret value is committed under deploy/.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dms/tools/processes';
import { loadServiceSettings, localSettingsTable, settingsTable, SERVICES, type ServiceSettings } from '@dms/tools/settings';
import { containerEnvNames, find, loadCompose, podSpec, renderedOverlays } from './manifests.js';

let settings: ServiceSettings;
beforeAll(async () => {
  settings = await loadServiceSettings();
});

const compose = loadCompose();
const production = renderedOverlays().production;

describe.each(SERVICES)('%s', (service) => {
  test('docker-compose.yml sets exactly the variables the service reads', () => {
    const set = Object.keys(compose.services[service]!.environment ?? {}).sort();
    expect(set).toEqual(Object.keys(settings[service]).sort());
  });

  test('the production Deployment sets exactly the variables the service reads', () => {
    const container = podSpec(find(production, 'Deployment', `dms-${service}`)).containers[0]!;
    expect([...containerEnvNames(production, container)].sort()).toEqual(Object.keys(settings[service]).sort());
  });
});

test('the migration gets only the database (tools/src/migrate.ts) and production mode', () => {
  expect(Object.keys(compose.services.migrate!.environment!).sort()).toEqual(['DATABASE_URL', 'NODE_ENV']);
  const job = podSpec(find(production, 'Job', 'dms-migrate')).containers[0]!;
  expect([...containerEnvNames(production, job)].sort()).toEqual(['DATABASE_URL', 'NODE_ENV']);
});

test('deploy/README.md carries the configuration table generated from the specs (npm run config-table)', () => {
  const readme = readFileSync(join(REPO_ROOT, 'deploy', 'README.md'), 'utf8');
  const embedded = /<!-- settings-table:start -->\n([\s\S]*?)<!-- settings-table:end -->/.exec(readme)?.[1];
  expect(embedded).toBe(settingsTable(settings));
});

test("README.md's \"Configuration\" carries both generated tables: the services' and the local commands' (npm run config-table)", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain(settingsTable(settings));
  expect(readme).toContain(localSettingsTable());
});

test('no secret value is committed in the deployment files', () => {
  const files = ['docker-compose.yml', '.dockerignore'].map((f) => join(REPO_ROOT, f));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(REPO_ROOT, 'deploy'));
  const leaks: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    // A base64 32-byte key, a PEM block, or a connection string with an inline password.
    for (const pattern of [/\b[A-Za-z0-9+/]{43}=/g, /-----BEGIN [A-Z ]*PRIVATE KEY-----/g, /\b(postgres(ql)?|redis):\/\/[^:\s/]+:(?!\$\{)[^@\s]+@/g]) {
      for (const m of text.matchAll(pattern)) leaks.push(`${file}: ${m[0].slice(0, 24)}…`);
    }
    // `KEY=value` assignments of secret settings in env files must be empty placeholders.
    for (const m of text.matchAll(/^(SECRETS_KEY|POSTGRES_PASSWORD)=(.+)$/gm)) leaks.push(`${file}: ${m[1]} has a value`);
  }
  expect(leaks).toEqual([]);
});
