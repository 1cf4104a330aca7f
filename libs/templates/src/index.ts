/**
 * @dms/templates: communication templates (docs/api.md section 13) rendered by
 * liquidjs, escaped by default and strict about variables and filters, with the documented
 * variable set and money formatting.
 */
export { CHANNELS, compileTemplate, renderTemplate, validateTemplate } from './template.js';
export type { Channel, CompiledTemplate, RenderedTemplate, TemplateSource } from './template.js';
export { TemplateError } from './problems.js';
export type { TemplateField, TemplateProblem, TemplateProblemCode } from './problems.js';
export { AMOUNT_FIELDS, SAMPLE_VARIABLES, VARIABLE_PATHS, buildTemplateVariables } from './variables.js';
export type { AmountField, TemplateVariables, TemplateVariablesInput } from './variables.js';
export { CURRENCY_LOCALES, formatMoney, isCurrency } from './money.js';
export type { Currency } from './money.js';
export { MAX_TEMPLATE_LENGTH, MEMORY_LIMIT, RENDER_LIMIT_MS, escapePlainText } from './engine.js';
