/**
 * The settings each service reads, taken from the envalid specs the services validate at start
 * (`authSpec`, `apiSpec`, `dispatcherSpec`, `workerSpec`, `portalSpec` in services/<name>/src/config.ts), so the operator's
 * configuration table and the deployment checks cannot drift from the code.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { embeddedPostgresSpec, startSpec } from '@dms/config';
import { REPO_ROOT, type ServiceName } from './processes.js';

/** One setting as declared in an envalid spec (only the documented fields). */
export interface SettingSpec {
  default?: unknown;
  desc?: string;
  choices?: readonly unknown[];
}

/** Service name -> (variable name -> spec). */
export type ServiceSettings = Record<ServiceName, Record<string, SettingSpec>>;

/** Every service whose settings are documented, in the order the configuration table lists them. */
export const SERVICES: readonly ServiceName[] = ['auth', 'api', 'dispatcher', 'worker', 'portal'];

/**
 * Loads `<name>Spec` from each built service (`services/<name>/dist/config.js`).
 * @throws when a service is not built or its config module exports no `<name>Spec`
 */
export async function loadServiceSettings(): Promise<ServiceSettings> {
  const out: Partial<ServiceSettings> = {};
  for (const name of SERVICES) {
    const mod = (await import(pathToFileURL(join(REPO_ROOT, 'services', name, 'dist', 'config.js')).href)) as Record<string, unknown>;
    const spec = mod[`${name}Spec`];
    if (!spec || typeof spec !== 'object') throw new Error(`services/${name}/src/config.ts exports no ${name}Spec`);
    out[name] = spec as Record<string, SettingSpec>;
  }
  return out as ServiceSettings;
}

/** True when the service starts without the variable being set. */
function hasDefault(spec: SettingSpec): boolean {
  return Object.prototype.hasOwnProperty.call(spec, 'default');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function formatDefault(name: string, spec: SettingSpec): string {
  if (!hasDefault(spec)) return '**required**';
  // Local-development defaults that depend on the checkout (DATA_DIR) or embed local credentials
  // are described rather than printed.
  if (name === 'DATA_DIR') return '`<repo>/.data`';
  if (name === 'DATABASE_URL') return 'embedded local PostgreSQL';
  if (spec.default === '') return '(empty)';
  return `\`${String(spec.default)}\``;
}

/**
 * Markdown table of every setting: variable, the services that read it, default, meaning.
 * Settings shared by all services come first, then the others, alphabetically.
 */
export function settingsTable(settings: ServiceSettings): string {
  // A variable declared alike by several services is one row; one that differs (PORT) is one per service.
  const rowsByKey = new Map<string, { name: string; services: ServiceName[]; spec: SettingSpec }>();
  for (const service of SERVICES) {
    for (const [name, spec] of Object.entries(settings[service])) {
      const key = JSON.stringify([name, spec.default, spec.desc, spec.choices]);
      const entry = rowsByKey.get(key) ?? { name, services: [], spec };
      entry.services.push(service);
      rowsByKey.set(key, entry);
    }
  }
  const rank = (services: ServiceName[]) => (services.length === SERVICES.length ? 0 : 1);
  const rows = [...rowsByKey.values()].sort(
    (x, y) => rank(x.services) - rank(y.services) || x.name.localeCompare(y.name) || x.services.join().localeCompare(y.services.join()),
  );
  return markdownTable(
    'services',
    rows.map(({ name, services, spec }) => ({ name, who: services.length === SERVICES.length ? 'all' : services.join(', '), spec })),
  );
}

/** The local commands' own settings: `embeddedPostgresSpec` and `startSpec` of @dms/config. */
const LOCAL_SPECS = { ...embeddedPostgresSpec, ...startSpec };

/** Who reads each of the local commands' own settings. */
const LOCAL_READERS: Readonly<Record<keyof typeof LOCAL_SPECS, string>> = {
  EMBEDDED_PG_PORT: '`npm start`, `migrate`, `seed`, admin CLI',
  EMBEDDED_PG_TEST_PORT: '`npm test`',
  AUTH_PORT: '`npm start`',
  API_PORT: '`npm start`',
  DISPATCHER_PORT: '`npm start`',
  WORKER_PORT: '`npm start`',
  PORTAL_PORT: '`npm start`',
  LOCAL_SMTP_PORT: '`npm start`',
  LOCAL_MAIL_WEB_PORT: '`npm start`',
  LOCAL_SMS_PORT: '`npm start`',
};

/**
 * Markdown table of the local commands' own settings, which no service reads (`embeddedPostgresSpec`
 * of @dms/config: the embedded PostgreSQL ports; `startSpec`: the ports `npm start` gives the
 * services and the local stand-ins): variable, commands, default, meaning.
 */
export function localSettingsTable(): string {
  const specs = LOCAL_SPECS as unknown as Record<keyof typeof LOCAL_SPECS, SettingSpec>;
  return markdownTable(
    'commands',
    (Object.keys(LOCAL_READERS) as Array<keyof typeof LOCAL_READERS>).map((name) => ({ name, who: LOCAL_READERS[name], spec: specs[name] })),
  );
}

/** The table of `rows`, in their order; `whoHeader` names the second column (who reads the setting). */
function markdownTable(whoHeader: string, rows: ReadonlyArray<{ name: string; who: string; spec: SettingSpec }>): string {
  const lines = [`| variable | ${whoHeader} | default | meaning |`, '|---|---|---|---|'];
  for (const { name, who, spec } of rows) {
    const desc = spec.desc ? spec.desc.replace(/([^.])$/, '$1.') : '';
    const meaning = [desc, spec.choices ? `One of: ${spec.choices.join(', ')}.` : ''].filter(Boolean).join(' ');
    lines.push(`| \`${name}\` | ${who} | ${cell(formatDefault(name, spec))} | ${cell(meaning)} |`);
  }
  return lines.join('\n') + '\n';
}
