/**
 * A step's fall-back to the customer's next usable channel (docs/api.md section 13, "Channel
 * fall-back"): a step that cannot reach the customer on its own channel (no usable detail of its
 * type: none, or every one marked `undeliverable` by a permanent refusal, or deleted) goes, the
 * same step and the same template, to the next channel that can. `usableChannels` is the one
 * decision of the order; `adaptRendered` carries the template's rendered text to the channel it
 * falls back to.
 */
import { convert } from 'html-to-text';
import type { RenderedTemplate } from '@dms/templates';
import type { ContactDetailRow } from '../contact-details/schemas.js';
import { DELIVERY_METHODS, type DeliveryMethod } from '../communication-templates/schemas.js';
import { pickDetail } from './details.js';

/**
 * The channels a step by `method` may use for a customer with the usable `details` (as
 * `usableDetails` orders them), in the order it tries them: its own channel first, then the
 * others in the order of `DELIVERY_METHODS` (email, sms, letter), each only when the customer has
 * a usable detail for it and `accepted` (the customer's accepted channels; all when omitted)
 * holds it. Empty when none can reach the customer.
 */
export function usableChannels(
  method: DeliveryMethod,
  details: readonly ContactDetailRow[],
  accepted: readonly DeliveryMethod[] = DELIVERY_METHODS,
): DeliveryMethod[] {
  const order = [method, ...DELIVERY_METHODS.filter((m) => m !== method)];
  return order.filter((m) => accepted.includes(m) && pickDetail(details, m) !== undefined);
}

/**
 * The rendered text of a template of channel `from` for a communication by `to` (the same
 * template carried to a fall-back channel): an email's HTML body becomes plain text for an SMS or
 * a letter; a text body becomes one escaped HTML paragraph per blank-line block for an email;
 * an SMS has no subject (an email's or letter's subject opens its text); an email without a subject
 * takes `fallbackSubject`. Unchanged when `from` is `to`.
 */
export function adaptRendered(rendered: RenderedTemplate, from: DeliveryMethod, to: DeliveryMethod, fallbackSubject: string): RenderedTemplate {
  if (from === to) return rendered;
  const text = from === 'email' ? convert(rendered.body, { wordwrap: false }).trim() : rendered.body.trim();
  if (to === 'sms') return { subject: null, body: rendered.subject ? `${rendered.subject}: ${text}` : text, format: 'text' };
  if (to === 'letter') return { subject: rendered.subject, body: text, format: 'text' };
  const html = text
    .split(/\n\s*\n/)
    .map((p) => `<p>${escapeHtml(p.trim()).replace(/\n/g, '<br>')}</p>`)
    .join('');
  return { subject: rendered.subject ?? fallbackSubject, body: html, format: 'html' };
}

/** `text` with the five HTML-special characters escaped. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
