/**
 * docs/api.md and the code stay in step (as fastify's errors test keeps its registry, its docs and
 * its types together): every file of the repository the reference names exists; the error table
 * lists exactly the registry's codes with their statuses; every event type it names exists and
 * every event type the resources declare is documented; every id prefix is documented.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { ERROR_CODES } from '../../libs/errors/src/index.js';
import { EVENT_TYPES, ID_PREFIXES } from '../../libs/domain/src/registry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');

describe('docs/api.md names only what exists', () => {
  test('every repository path it names is in the repository', () => {
    const paths = [...DOC.matchAll(/(?<![\w/.-])((?:libs|services|tools|scripts|deploy|docs|test)\/[A-Za-z0-9_./-]*[A-Za-z0-9_/-])/g)].map((m) => m[1]!);
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
