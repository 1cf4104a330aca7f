/**
 * `/communication_templates` (docs/api.md section 13): list, create, retrieve and update
 * (`PATCH`, and `PUT` as its twin) the tenant's templates, and list a template's versions; behind
 * `communications:read` / `communications:write`. A template's text is checked when it is saved
 * (400 naming `subject` or `body`, with the line and column); editing it makes a new version.
 */
import {
  CommunicationTemplate,
  CommunicationTemplateCreate,
  CommunicationTemplateUpdate,
  CommunicationTemplateVersion,
  communicationTemplateVersionsResource,
  communicationTemplatesResource,
  createTemplate,
  loadTemplate,
  toCommunicationTemplate,
  toCommunicationTemplateVersion,
  updateTemplate,
  withCurrentText,
  type CommunicationTemplateRow,
  type CommunicationTemplateVersionRow,
} from '@dms/domain/communication-templates';
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({ resource: communicationTemplatesResource, path: '/communication_templates', tag: 'Communication templates' });
const object = { name: 'CommunicationTemplate', schema: CommunicationTemplate };
const underTemplate = nestedUnder(communicationTemplatesResource, 'id', 'communication_template_versions.template_id');

/** The operations of `/communication_templates`. */
export const communicationTemplateOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: (i) =>
      listPage<CommunicationTemplateRow, CommunicationTemplate>(i, {
        resource: communicationTemplatesResource,
        narrow: withCurrentText,
        counter: () => ['communication_templates'],
        serialize: (rows) => rows.map(toCommunicationTemplate),
      }),
  }),
  defineOperation({
    ...names.create,
    description:
      'Stores the template as version 1 after checking it: it must parse as Liquid, name only the documented variables and filters, and have what its channel needs (an email a subject, an SMS none). A `name` in use is 409.',
    body: { name: 'CommunicationTemplateCreate', schema: CommunicationTemplateCreate },
    response: { ...object, status: 201 },
    errors: ['resource_conflict'],
    events: ['communication_template.created'],
    handler: (i) => createTemplate(i.ctx.db, i.tenantId, i.body),
  }),
  defineOperation({
    ...names.retrieve,
    response: { ...object, status: 200 },
    handler: async (i) => toCommunicationTemplate(await loadTemplate(i.ctx.db, i.tenantId, i.params.id)),
  }),
  defineOperation({
    ...names.update,
    description: 'A new `subject` or `body` is checked as on create and becomes the next version; communications already made keep the version they used.',
    body: { name: 'CommunicationTemplateUpdate', schema: CommunicationTemplateUpdate },
    response: { ...object, status: 200 },
    errors: ['resource_conflict'],
    events: ['communication_template.updated'],
    handler: (i) => updateTemplate(i.ctx.db, i.tenantId, i.params.id, i.body),
  }),
  defineOperation({
    ...names.list,
    path: '/communication_templates/{id}/versions',
    operationId: 'listCommunicationTemplateVersions',
    summary: "List a template's versions",
    description: 'Every version of the text, newest first.',
    pathParams: { id: communicationTemplatesResource.idPrefix },
    query: pageQuery(),
    response: { name: 'CommunicationTemplateVersion', schema: CommunicationTemplateVersion, status: 200, list: true },
    handler: async (i) => {
      const template = await underTemplate(i);
      return listPage<CommunicationTemplateVersionRow, CommunicationTemplateVersion>(i, {
        resource: communicationTemplateVersionsResource,
        narrow: template.narrow,
        counter: () => ['communication_template_versions', template.id],
        serialize: (rows) => rows.map(toCommunicationTemplateVersion),
      });
    },
  }),
];
