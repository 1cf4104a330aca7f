/**
 * `npm run -s import-file -- --type placement --organisation org_… --file samples/imports/placement.csv
 * [--api http://localhost:3000] [--token $TOKEN] [--interval 0.5]`: uploads a CSV file to
 * `POST /imports` (docs/api.md section 16), streamed from disk, then polls the import and draws its
 * progress on stderr until it is `completed` or `failed`. stdout gets the final import as one JSON
 * object. Exit code 0 when completed (row errors included: see `GET /imports/{id}/errors.csv`),
 * 1 when the file was refused or the request failed. The token comes from `--token` or `TOKEN`.
 */
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    type: { type: 'string' },
    organisation: { type: 'string' },
    file: { type: 'string' },
    api: { type: 'string', default: process.env.API_URL ?? 'http://localhost:3000' },
    token: { type: 'string', default: process.env.TOKEN ?? '' },
    interval: { type: 'string', default: '0.5' },
  },
});

const fail = (message: string): never => {
  process.stderr.write(`import-file: ${message}\n`);
  process.exit(1);
};

if (!values.type || !values.file) fail('--type and --file are required (and --organisation for placements)');
if (!values.token) fail('no token: pass --token or set TOKEN');

interface ImportObject {
  id: string;
  status: string;
  rows_total: number;
  rows_processed: number;
  rows_succeeded: number;
  rows_failed: number;
  failure: { code: string; message: string } | null;
}

const headers = { Authorization: `Bearer ${values.token}` };

/** One line of progress: a 30-cell bar, counts and percent. */
function bar(imp: ImportObject): string {
  const share = imp.rows_total ? imp.rows_processed / imp.rows_total : 1;
  const filled = Math.round(share * 30);
  return `[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${imp.rows_processed}/${imp.rows_total} rows, ${imp.rows_succeeded} ok, ${imp.rows_failed} failed (${Math.floor(share * 100)}%) ${imp.status}`;
}

const form = new FormData();
form.append('type', values.type!);
if (values.organisation) form.append('organisation_id', values.organisation);
form.append('file', await openAsBlob(values.file!), basename(values.file!));
const res = await fetch(new URL('/imports', values.api), { method: 'POST', headers, body: form });
let imp = (await res.json()) as ImportObject & { message?: string };
if (!res.ok) fail(`${res.status} ${imp.message ?? JSON.stringify(imp)}`);
process.stderr.write(`${res.status === 200 ? 'already imported' : 'uploaded'}: ${imp.id}\n`);
const tty = process.stderr.isTTY;
while (imp.status === 'queued' || imp.status === 'processing') {
  process.stderr.write(tty ? `\r${bar(imp)}` : `${bar(imp)}\n`);
  await new Promise((r) => setTimeout(r, Number(values.interval) * 1000));
  const poll = await fetch(new URL(`/imports/${imp.id}`, values.api), { headers });
  if (!poll.ok) fail(`${poll.status} while following ${imp.id}`);
  imp = (await poll.json()) as ImportObject;
}
process.stderr.write(`${tty ? '\r' : ''}${bar(imp)}\n`);
if (imp.failure) process.stderr.write(`refused: ${imp.failure.code}: ${imp.failure.message}\n`);
process.stdout.write(`${JSON.stringify(imp)}\n`);
process.exit(imp.status === 'completed' ? 0 : 1);
