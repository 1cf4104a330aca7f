/**
 * Communication templates (docs/api.md section 13): created and edited by the tenant, checked by
 * @dms/templates before they are stored (a template that names an unknown variable or filter, does
 * not parse, or lacks what its channel needs is a 400 naming the field, the line and the column).
 * The text lives in versions: create makes version 1, an edit of `subject` or `body` the next one,
 * and the template row keeps the current version's number, so a communication sent earlier keeps
 * the exact text it used. Each write records its event in the same transaction.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import { validateTemplate, type TemplateSource } from '@dms/templates';
import { mergeMetadata } from '../kernel/metadata.js';
import { recordEvent } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { communicationTemplatesResource as templates, communicationTemplateVersionsResource as versions } from './resource.js';
import type {
  CommunicationTemplate,
  CommunicationTemplateCreate,
  CommunicationTemplateRow,
  CommunicationTemplateUpdate,
  CommunicationTemplateVersion,
  CommunicationTemplateVersionRow,
  DeliveryMethod,
} from './schemas.js';

/** Maps a row (read with its current text) to the public object. */
export function toCommunicationTemplate(row: CommunicationTemplateRow): CommunicationTemplate {
  return {
    id: row.id,
    object: 'communication_template',
    name: row.name,
    delivery_method: row.delivery_method,
    version: row.version,
    subject: row.subject,
    body: row.body,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** Maps a version row to the public object. */
export function toCommunicationTemplateVersion(row: CommunicationTemplateVersionRow): CommunicationTemplateVersion {
  return {
    id: row.id,
    object: 'communication_template_version',
    template: row.template_id,
    version: row.version,
    subject: row.subject,
    body: row.body,
    created_at: iso(row.created_at)!,
  };
}

/** Makes a query of templates select their columns plus the current version's `subject` and `body`. */
export function withCurrentText(q: Knex.QueryBuilder): void {
  q.join(`${versions.table} as current_text`, (j) =>
    j.on('current_text.template_id', 'communication_templates.id').andOn('current_text.version', 'communication_templates.version'),
  ).select('communication_templates.*', 'current_text.subject', 'current_text.body');
}

/**
 * Loads the tenant's template `id` with its current text.
 * @throws ApiError 404 `resource_missing`
 */
export function loadTemplate(db: Knex | Knex.Transaction, tenantId: string, id: string, forUpdate = false): Promise<CommunicationTemplateRow> {
  return findOwned<CommunicationTemplateRow>(db, templates, tenantId, id, { forUpdate, select: withCurrentText });
}

/**
 * The tenant's template named `name`, with its current text (strategies name their templates).
 * @returns the row, or undefined when the tenant has none of that name
 */
export async function templateNamed(db: Knex | Knex.Transaction, tenantId: string, name: string): Promise<CommunicationTemplateRow | undefined> {
  const q = tenantRows(db, templates, tenantId).where('communication_templates.name', name);
  withCurrentText(q);
  return (await q.first()) as CommunicationTemplateRow | undefined;
}

/**
 * Checks a template's text for its channel with @dms/templates.
 * @throws ApiError 400 `validation_failed`, `param` the first faulty field (`subject` or `body`),
 *   `errors` every problem with its line and column
 */
export function checkTemplateText(source: TemplateSource, method: DeliveryMethod): void {
  const problems = validateTemplate(source, method);
  if (!problems.length) return;
  const errors = problems.map((p) => ({ param: p.field, message: p.message }));
  throw new ApiError('validation_failed', problems[0]!.message, { param: problems[0]!.field, errors });
}

const nameTaken = (name: string) => new ApiError('resource_conflict', `A communication template named '${name}' exists.`, { param: 'name' });

/** Runs `write`, turning the unique index on (tenant, name) into 409 `resource_conflict`. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'communication_templates_name_unique') throw nameTaken(name ?? '');
    throw err;
  }
}

/** Inserts version `version` of template `templateId`. */
async function insertVersion(trx: Knex.Transaction, tenantId: string, templateId: string, version: number, source: TemplateSource): Promise<void> {
  await trx(versions.table).insert({
    id: newId(versions.idPrefix),
    tenant_id: tenantId,
    template_id: templateId,
    version,
    subject: source.subject ?? null,
    body: source.body,
  });
}

/** Reads the template back with its text and records `event`. */
async function recorded(trx: Knex.Transaction, tenantId: string, id: string, event: 'communication_template.created' | 'communication_template.updated') {
  const template = toCommunicationTemplate(await loadTemplate(trx, tenantId, id));
  await recordEvent(trx, templates, tenantId, event, template);
  return template;
}

/**
 * `POST /communication_templates`: checks the text, stores the template with version 1
 * (`communication_template.created`).
 * @throws ApiError 400 `validation_failed` (`subject`/`body`), 409 `resource_conflict` (`name` taken)
 */
export function createTemplate(db: Knex, tenantId: string, input: CommunicationTemplateCreate): Promise<CommunicationTemplate> {
  const source = { subject: input.subject ?? null, body: input.body };
  checkTemplateText(source, input.delivery_method);
  return uniqueName(input.name, () =>
    db.transaction(async (trx) => {
      const id = newId(templates.idPrefix);
      await trx(templates.table).insert({
        id,
        tenant_id: tenantId,
        name: input.name,
        delivery_method: input.delivery_method,
        version: 1,
        metadata: JSON.stringify(input.metadata ?? {}),
      });
      await insertVersion(trx, tenantId, id, 1, source);
      return recorded(trx, tenantId, id, 'communication_template.created');
    }),
  );
}

/**
 * `PATCH`/`PUT /communication_templates/{id}`: `name` replaces, `metadata` merges, and a new
 * `subject` or `body` is checked and stored as the next version (`communication_template.updated`).
 * @throws ApiError 404, 400 `validation_failed` (`subject`/`body`), 409 `resource_conflict` (`name`)
 */
export function updateTemplate(db: Knex, tenantId: string, id: string, input: CommunicationTemplateUpdate): Promise<CommunicationTemplate> {
  return uniqueName(input.name, () =>
    db.transaction(async (trx) => {
      const current = await loadTemplate(trx, tenantId, id, true);
      const changes: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(mergeMetadata(current.metadata, input.metadata));
      if (input.subject !== undefined || input.body !== undefined) {
        const source = { subject: input.subject !== undefined ? input.subject : current.subject, body: input.body ?? current.body };
        checkTemplateText(source, current.delivery_method);
        changes.version = current.version + 1;
        await insertVersion(trx, tenantId, current.id, current.version + 1, source);
      }
      await tenantRows(trx, templates, tenantId).where('communication_templates.id', current.id).update(changes);
      return recorded(trx, tenantId, current.id, 'communication_template.updated');
    }),
  );
}
