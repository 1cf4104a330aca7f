/**
 * Receiving an import's file (docs/api.md section 16), streamed: each chunk is hashed (SHA-256),
 * checked as UTF-8 and handed to csv-parse, and the records are stored in batches as the rows of
 * the import, so the file is never whole in memory (backpressure reaches the upload's socket).
 * One transaction: the import commits `queued` with its rows and lanes, or `failed` with the reason
 * a file is refused whole (and no rows), or not at all; the same file of the same type already
 * imported answers that import instead.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { findOwned } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import { checkHeader, type FileProblem, type ImportType } from './files.js';
import { laneOf, LANES } from './lanes.js';
import { importsResource } from './resource.js';
import type { Import } from './schemas.js';
import { insertReceiving, moveImport, refusal, sameFile, toImport } from './store.js';

/** An upload as the API hands it over. */
export interface Upload {
  tenantId: string;
  type: ImportType;
  organisationId?: string | undefined;
  filename?: string | undefined;
  /** Client id of the uploader: the `whodunnit` of what the rows change. */
  createdBy: string;
  /** The file's bytes. */
  file: Readable;
  /** True once the transport cut the file at its size limit (checked after the stream ends). */
  truncated: () => boolean;
}

/** The file was larger than the size limit: nothing is stored (the API answers 413). */
export class FileTooLarge extends Error {}

/** The same file of the same type was imported before: the upload's transaction rolls back. */
class SameFile extends Error {
  constructor(readonly existing: Import) {
    super('same file');
  }
}

/** Rows stored per INSERT. */
const BATCH = 500;
/** Most data rows in one file. */
export const MAX_ROWS = 5_000_000;

/** What reading the file found. */
interface Reading {
  problem: FileProblem | undefined;
  rows: number;
  perLane: number[];
}

/** Reads the CSV text from `source` and stores its records as rows of `importId`. */
async function storeRows(trx: Knex.Transaction, importId: string, type: ImportType, source: PassThrough, reading: Reading): Promise<void> {
  const parser = parse({ bom: true, skip_empty_lines: true, max_record_size: 1 << 20 });
  const parsed = pipeline(source, parser);
  // Leaving the loop early (a refused header) destroys the parser: that rejection is expected.
  parsed.catch(() => undefined);
  let header: string[] | undefined;
  let batch: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (batch.length) await trx('import_rows').insert(batch);
    batch = [];
  };
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map((h) => h.trim());
        reading.problem = checkHeader(type, header);
        if (reading.problem) return;
        continue;
      }
      if (record.some((cell) => cell.includes('\u0000'))) {
        reading.problem = { code: 'not_csv', message: `Row ${reading.rows + 2} holds a NUL character: the file is not CSV text.` };
        return;
      }
      if (reading.rows >= MAX_ROWS) {
        reading.problem = { code: 'too_many_rows', message: `A file may hold at most ${MAX_ROWS} rows.` };
        return;
      }
      const cells: Record<string, string> = {};
      header.forEach((name, i) => (cells[name] = (record[i] ?? '').trim()));
      const lane = laneOf(cells.account_number ?? '');
      reading.rows += 1;
      reading.perLane[lane]! += 1;
      batch.push({ import_id: importId, row_number: reading.rows + 1, lane, cells });
      if (batch.length >= BATCH) await flush();
    }
    await parsed;
    await flush();
    if (!header) reading.problem ??= { code: 'empty_file', message: 'The file has no header row.' };
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    reading.problem ??= notCsv(err);
  }
}

/** What each csv-parse error means, in words that quote none of the file. */
const CSV_FAULTS: Readonly<Record<string, string>> = {
  INVALID_OPENING_QUOTE: 'a quote (") inside a field that does not start with one (quote the field and double the quote)',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field goes on after its closing quote',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a quoted field goes on after its closing quote',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'a row has another number of cells than the header',
  CSV_MAX_RECORD_SIZE: 'a row is longer than 1 MiB',
};

/**
 * The `not_csv` refusal for a csv-parse error: its line number and what is wrong, never the
 * error's own message or fields, which quote the file's cells (personal data stays out of the
 * import's failure and of every log line).
 */
function notCsv(err: CsvError): FileProblem {
  const line = typeof err.lines === 'number' ? ` on line ${err.lines}` : '';
  return { code: 'not_csv', message: `The file is not valid CSV${line}: ${CSV_FAULTS[err.code] ?? 'it cannot be read as CSV'}.` };
}

/**
 * Reads `upload.file` to its end: hashes every byte, passes the text on while it is valid UTF-8
 * and no problem was found, and stores the rows. Bytes after a refusal are still hashed.
 */
async function readFile(trx: Knex.Transaction, importId: string, upload: Upload, reading: Reading): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const source = new PassThrough();
  let ended = false;
  const done = storeRows(trx, importId, upload.type, source, reading).finally(() => (ended = true));
  let size = 0;
  const pass = async (text: string) => {
    if (ended || reading.problem || !text) return;
    if (!source.write(text)) await Promise.race([once(source, 'drain'), done]);
  };
  for await (const chunk of upload.file as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    if (reading.problem) continue;
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      reading.problem = { code: 'not_utf8', message: `The file is not UTF-8 text (an invalid byte sequence near byte ${size - chunk.length}).` };
      continue;
    }
    await pass(text);
  }
  if (!reading.problem) {
    try {
      await pass(decoder.decode());
    } catch {
      reading.problem = { code: 'not_utf8', message: 'The file is not UTF-8 text (it ends inside a character).' };
    }
  }
  if (!source.destroyed) source.end();
  await done;
  return { sha256: hash.digest('hex'), size };
}

/**
 * Receives a file as an import of `upload.type` (see the module comment).
 * @returns the import, and whether it is new (false: the same file and type was imported before)
 * @throws FileTooLarge when the transport cut the file at its limit (nothing stored)
 */
export async function receiveImport(db: Knex, upload: Upload): Promise<{ created: boolean; import: Import }> {
  try {
    return await receive(db, upload);
  } catch (err) {
    if (err instanceof SameFile) return { created: false, import: err.existing };
    throw err;
  }
}

async function receive(db: Knex, upload: Upload): Promise<{ created: boolean; import: Import }> {
  return db.transaction(async (trx) => {
    const id = newId(importsResource.idPrefix);
    const current = await insertReceiving(trx, id, {
      tenantId: upload.tenantId,
      type: upload.type,
      organisationId: upload.organisationId ?? null,
      filename: upload.filename ?? null,
      createdBy: upload.createdBy,
    });
    const reading: Reading = { problem: undefined, rows: 0, perLane: new Array<number>(LANES).fill(0) };
    if (upload.organisationId !== undefined) {
      try {
        await findOwned(trx, organisationsResource, upload.tenantId, upload.organisationId);
      } catch {
        reading.problem = { code: 'unknown_organisation', message: `No such organisation: '${upload.organisationId}'.` };
      }
    }
    const { sha256, size } = await readFile(trx, id, upload, reading);
    if (upload.truncated()) throw new FileTooLarge();
    const columns = { sha256, size_bytes: size };
    if (reading.problem) {
      await trx('import_rows').where({ import_id: id }).delete();
      return {
        created: true,
        import: await moveImport(trx, upload.tenantId, current, 'refuse', { ...columns, ...refusal(reading.problem), finished_at: trx.fn.now() }),
      };
    }
    // Two uploads of one file at once: the second waits here for the first's outcome.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`import:${upload.tenantId}:${upload.type}:${sha256}`]);
    const existing = await sameFile(trx, upload.tenantId, upload.type, sha256);
    if (existing) throw new SameFile(toImport(existing));
    const lanes = reading.perLane.map((rows_total, lane) => ({ import_id: id, lane, rows_total })).filter((l) => l.rows_total > 0);
    if (lanes.length) await trx('import_lanes').insert(lanes);
    return { created: true, import: await moveImport(trx, upload.tenantId, current, 'queue', { ...columns, rows_total: reading.rows }) };
  });
}
