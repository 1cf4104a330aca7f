/**
 * Communication templates (docs/api.md section 13): the text of what the platform sends customers,
 * per tenant, by name and delivery method, versioned (an edit of the text makes a new version; a
 * communication keeps the version it used). They introduce the communications scopes.
 */
import { defineResource } from '../kernel/resource.js';
import { COMMUNICATION_TEMPLATE_SEARCH_FIELDS } from './search.js';

/** The `communication_templates` table. */
export const communicationTemplatesResource = defineResource({
  object: 'communication_template',
  noun: 'communication template',
  table: 'communication_templates',
  idPrefix: 'ctpl',
  events: ['communication_template.created', 'communication_template.updated'],
  scopes: ['communications:read', 'communications:write'],
  search: COMMUNICATION_TEMPLATE_SEARCH_FIELDS,
});

/** The `communication_template_versions` table: every version's text, immutable. */
export const communicationTemplateVersionsResource = defineResource({
  object: 'communication_template_version',
  noun: 'communication template version',
  table: 'communication_template_versions',
  idPrefix: 'ctv',
  events: [],
});
