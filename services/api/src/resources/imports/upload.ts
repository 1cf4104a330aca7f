/**
 * `POST /imports` (docs/api.md section 16): reads the multipart/form-data body with busboy as it
 * arrives: the text fields (`type`, `organisation_id`) first, then the `file` part, whose stream
 * goes to the domain's receiver without ever being whole in memory. The file is cut at
 * `IMPORT_MAX_BYTES` (413 `file_too_large`, nothing stored).
 */
import busboy from 'busboy';
import { ApiError } from '@dms/errors';
import { validator } from '@dms/domain/kernel';
import { FileTooLarge, ImportFields, receiveImport, type Import } from '@dms/domain/imports';
import type { OperationInput } from '../../operations/operation.js';

const checkFields = validator<ImportFields>(ImportFields);

const tooLarge = (max: number) => new ApiError('file_too_large', `The file exceeds the import size limit of ${max} bytes.`);

/**
 * Receives the upload; answers 201 with a new import, 200 with the import of the same file and type.
 * @throws ApiError 415 (not multipart), 400 `validation_failed` (`type`, `organisation_id`, `file`),
 *   413 `file_too_large`
 */
export function uploadImport(input: OperationInput<unknown, unknown, unknown>): Promise<Import> {
  const { req, res, ctx } = input;
  const max = ctx.cfg.IMPORT_MAX_BYTES;
  if (!req.is('multipart/form-data'))
    throw new ApiError('unsupported_media_type', 'POST /imports takes multipart/form-data with the fields type, organisation_id and file.');
  return new Promise<Import>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let started = false;
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: max, files: 1, fields: 10, fieldSize: 1024 } });
    } catch (err) {
      throw new ApiError('validation_failed', `The multipart body cannot be read: ${(err as Error).message}`, { param: 'file' });
    }
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || started) return void stream.resume();
      started = true;
      let parsed: ImportFields;
      try {
        parsed = checkFields(fields);
        if (parsed.type === 'placement' && !parsed.organisation_id) {
          const message = 'is required for a placement file (send the fields before the file)';
          throw new ApiError('validation_failed', `organisation_id ${message}`, { param: 'organisation_id', errors: [{ param: 'organisation_id', message }] });
        }
      } catch (err) {
        stream.resume();
        return reject(err instanceof ApiError ? err : new Error(String(err)));
      }
      let truncated = false;
      stream.on('limit', () => (truncated = true));
      receiveImport(ctx.db, {
        tenantId: input.tenantId,
        type: parsed.type,
        organisationId: parsed.organisation_id,
        filename: info.filename,
        createdBy: input.principal.clientId,
        file: stream,
        truncated: () => truncated,
      }).then(
        (outcome) => {
          res.status(outcome.created ? 201 : 200);
          resolve(outcome.import);
        },
        (err: unknown) => reject(err instanceof FileTooLarge ? tooLarge(max) : err instanceof Error ? err : new Error(String(err))),
      );
    });
    bb.on('close', () => {
      if (!started) {
        const message = 'is required: a part named file (after the fields type and organisation_id)';
        reject(new ApiError('validation_failed', `file ${message}`, { param: 'file', errors: [{ param: 'file', message }] }));
      }
    });
    bb.on('error', (err: Error) => reject(new ApiError('validation_failed', `The multipart body cannot be read: ${err.message}`, { param: 'file' })));
    req.pipe(bb);
  });
}
