/**
 * Renders a strategy step for one debt (docs/api.md section 13): finds the template the step
 * names (the tenant's, by name or id, at its current version; else the built-in of that name),
 * builds the documented variables from the debt, customer and organisation, and renders with
 * @dms/templates (Liquid, escaped by default). Each template version is compiled once per
 * process. Any failure is returned as a reason: the engine records a `failed` communication.
 */
import type { Knex } from '@dms/db';
import { buildTemplateVariables, compileTemplate, type CompiledTemplate, type RenderedTemplate, type TemplateSource } from '@dms/templates';
import { BUILT_IN_TEMPLATES } from '../communication-templates/defaults.js';
import { communicationTemplatesResource } from '../communication-templates/resource.js';
import { withCurrentText } from '../communication-templates/store.js';
import type { CommunicationTemplateRow, DeliveryMethod } from '../communication-templates/schemas.js';
import type { CustomerRow } from '../customers/schemas.js';
import type { DebtRow } from '../debts/schemas.js';
import { toSummary } from '../debts/store.js';
import { tenantRows } from '../kernel/scoped.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { localTime } from './rules.js';

/** The template a step uses. */
export interface StepTemplate {
  /** The tenant's template id, or null for a built-in one. */
  id: string | null;
  version: number | null;
  name: string;
  deliveryMethod: DeliveryMethod;
  source: TemplateSource;
}

/** A rendered step, or why it could not be rendered. */
export type RenderOutcome = { ok: true; template: StepTemplate; rendered: RenderedTemplate } | { ok: false; template: StepTemplate | null; reason: string };

/** What the engine needs to make a communication's links (the worker's settings make them). */
export interface Links {
  /** The per-debt reply address of emails. */
  replyAddress(debtId: string): string;
  /** The customer portal: its public base address (`PORTAL_BASE_URL`) and the keys of link tokens, current first (`linkTokenKeys`). */
  portal: { baseUrl: string; keys: Buffer[] };
}

/** The links of one message: its reply address and its own portal link (`{{ payment_link }}`). */
export interface MessageLinks {
  replyAddress: string;
  paymentLink: string;
}

const compiled = new Map<string, CompiledTemplate>();

/** The tenant's template named (or with id) `ref`, else the built-in of that name. */
export async function stepTemplate(db: Knex | Knex.Transaction, tenantId: string, ref: string): Promise<StepTemplate | null> {
  const q = tenantRows(db, communicationTemplatesResource, tenantId).where(
    (w) => void w.where('communication_templates.name', ref).orWhere('communication_templates.id', ref),
  );
  withCurrentText(q);
  const row = (await q.first()) as CommunicationTemplateRow | undefined;
  if (row) return { id: row.id, version: row.version, name: row.name, deliveryMethod: row.delivery_method, source: { subject: row.subject, body: row.body } };
  const builtIn = BUILT_IN_TEMPLATES[ref];
  return builtIn ? { id: null, version: null, name: builtIn.name, deliveryMethod: builtIn.delivery_method, source: builtIn } : null;
}

function compile(t: StepTemplate): CompiledTemplate {
  const key = t.id ? `${t.id}@${t.version}` : `builtin:${t.name}`;
  let c = compiled.get(key);
  if (!c) {
    c = compileTemplate(t.source, t.deliveryMethod);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(key, c);
  }
  return c;
}

/**
 * Renders step template `ref` by `method` for `debt`, at `now` in the customer's `timeZone`.
 * @param find the template a step names (`stepTemplate`, or a batch's cache of it)
 * @returns the rendered text, or `{ok: false, reason}` (no such template, another channel's
 *   template, a render failure such as a render limit)
 */
export async function renderStep(
  find: (tenantId: string, ref: string) => Promise<StepTemplate | null>,
  parts: { debt: DebtRow; customer: CustomerRow; organisation: OrganisationRow },
  ref: string,
  method: DeliveryMethod,
  links: MessageLinks,
  at: { now: Date; timeZone: string },
): Promise<RenderOutcome> {
  const { debt, customer, organisation } = parts;
  const template = await find(debt.tenant_id, ref);
  if (!template) return { ok: false, template: null, reason: `no communication template '${ref}'` };
  if (template.deliveryMethod !== method) return { ok: false, template, reason: `template '${ref}' is for ${template.deliveryMethod}, not ${method}` };
  try {
    const variables = buildTemplateVariables({
      debt: {
        id: debt.id,
        account_number: debt.account_number,
        kind: debt.kind,
        currency: debt.currency,
        start_at: debt.start_at ? debt.start_at.toISOString().slice(0, 10) : null,
        status: debt.status,
      },
      customer: {
        id: customer.id,
        kind: customer.kind,
        full_name: customer.full_name ?? ([customer.first_name, customer.last_name].filter(Boolean).join(' ') || null),
        first_name: customer.first_name,
        last_name: customer.last_name,
        preferred_locale: customer.preferred_locale,
      },
      organisation: { id: organisation.id, name: organisation.name, customer_facing_name: organisation.customer_facing_name },
      summary: toSummary(debt),
      reply_address: links.replyAddress,
      payment_link: links.paymentLink,
      today: localTime(at.now, at.timeZone).date,
    });
    return { ok: true, template, rendered: compile(template).render(variables) };
  } catch (err) {
    return { ok: false, template, reason: `template '${template.name}' failed to render: ${(err as Error).message}` };
  }
}
