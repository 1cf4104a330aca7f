/**
 * The contact rules and the making of one outbound message, shared by every message the
 * collection engine sends (docs/api.md sections 12 and 13): a strategy step (`runSteps`) and a
 * pay-later promise's reminder (`remindPromise`) pass the same gate and are made the same way.
 * - `contactGate`: may the debt's customer be contacted now, and by which channel? No contact in a
 *   status that forbids it nor during a timed contact pause (a vulnerability disclosure's 30 days),
 *   only in the customer's contact hours (08:00-21:00 in their zone, narrowed by their preferred
 *   hours), at most the strategy's contacts per 7 days, and only by a channel the customer has a
 *   usable detail for and has not refused (`usableChannels`: the wanted channel, else the next).
 * - `composeMessage`: renders the template for the channel it is written for, carries its text to
 *   the channel chosen (`adaptRendered`), gives the message its own portal link
 *   (`{{ payment_link }}`) and builds the communication to insert and where it goes.
 */
import type { CustomerRow } from '../customers/schemas.js';
import { acceptedChannels, preferredHours } from '../customers/preferences.js';
import type { ContactDetailRow } from '../contact-details/schemas.js';
import type { DeliveryMethod } from '../communication-templates/schemas.js';
import type { DebtRow } from '../debts/schemas.js';
import { forbidsContact } from '../debts/states.js';
import { DEFAULT_CONTACTS_PER_7_DAYS, type CollectionStrategy } from '../organisations/strategy.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { redactToken } from '../portal/links.js';
import { adaptRendered, usableChannels } from './channels.js';
import { pickDetail } from './details.js';
import { planLink, type PlannedLink } from './portal-link.js';
import type { EngineReads } from './reads.js';
import { renderStep, type Links } from './render.js';
import { nextAllowedByLimit, nextContactTime, timeZoneOf } from './rules.js';
import type { OutboundInput } from './store.js';

/** Where a queued communication goes and what it says (the worker builds the provider's message from it). */
export interface SendTarget {
  /** An email address, an E.164 number, or a postal address. */
  value: string | null;
  address: unknown;
  name: string | null;
  /** The organisation writing: its customer-facing name. */
  senderName: string;
  subject: string | null;
  body: string;
  /** The customer's time zone (its contact hours). */
  timeZone: string;
}
/** Who the gate let through, and by which channel and detail. */
export interface ContactAllowed {
  kind: 'allowed';
  organisation: OrganisationRow;
  strategy: CollectionStrategy;
  customer: CustomerRow;
  /** The customer's time zone (its contact hours). */
  timeZone: string;
  method: DeliveryMethod;
  detail: ContactDetailRow;
}

/** The gate's answer: allowed; not now (`at`: when to look again, null when only a change of the debt's status reopens it); or no channel can reach the customer. */
export type ContactGate = ContactAllowed | { kind: 'wait'; at: Date | null; why: string } | { kind: 'unreachable' };

/** True while the debt's customer may not be contacted at `now`: its status forbids contact, or a timed contact pause (`pause_end_at`) runs. */
export function contactPaused(debt: Pick<DebtRow, 'status' | 'pause_end_at'>, now: Date): boolean {
  return forbidsContact(debt.status) || (debt.pause_end_at !== null && new Date(debt.pause_end_at) > now);
}

/**
 * The contact rules of section 12 for a message to the locked debt's customer at `now`, wanting
 * channel `method` (see the module doc).
 * @throws ApiError 404 `resource_missing` when the debt's customer is gone
 */
export async function contactGate(debt: DebtRow, now: Date, reads: EngineReads, method: DeliveryMethod): Promise<ContactGate> {
  if (forbidsContact(debt.status)) return { kind: 'wait', at: null, why: `status '${debt.status}' forbids contact` };
  if (contactPaused(debt, now)) return { kind: 'wait', at: new Date(debt.pause_end_at!), why: 'contact paused' };
  const { organisation, strategy } = await reads.strategyFor(debt);
  const customer = await reads.customer(debt);
  const timeZone = timeZoneOf(customer.preferred_locale);
  const windowAt = nextContactTime(now, timeZone, preferredHours(customer));
  if (windowAt > now) return { kind: 'wait', at: windowAt, why: `outside the contact hours in ${timeZone}` };
  const limit = strategy.contacts_per_7_days ?? DEFAULT_CONTACTS_PER_7_DAYS;
  const recent = await reads.contactsInSevenDays(debt, now);
  const limitAt = nextAllowedByLimit(now, recent.count, recent.oldest, limit);
  if (limitAt > now) return { kind: 'wait', at: limitAt, why: `${recent.count} contacts in 7 days (limit ${limit})` };
  const details = await reads.usableDetails(debt);
  // The wanted channel, else the customer's next usable one (channels.ts).
  const chosen = usableChannels(method, details, acceptedChannels(customer))[0];
  if (!chosen) return { kind: 'unreachable' };
  return { kind: 'allowed', organisation, strategy, customer, timeZone, method: chosen, detail: pickDetail(details, chosen)! };
}

/** A message made: the communication to insert, and where it goes with its link (null `to`: it could not be rendered and is stored `failed`). */
export interface ComposedMessage {
  input: OutboundInput;
  to: SendTarget | null;
  link?: PlannedLink;
}

/**
 * Makes the message of template `template` (written for channel `templateMethod`) to the customer
 * the gate allowed, at `now`, for strategy step `step` (null: a message outside the strategy, such
 * as a promise's reminder). Notes the contact in `reads` when it is made.
 */
export async function composeMessage(
  debt: DebtRow,
  allowed: ContactAllowed,
  template: { ref: string; method: DeliveryMethod },
  step: number | null,
  now: Date,
  links: Links,
  reads: EngineReads,
): Promise<ComposedMessage> {
  const { organisation, customer, timeZone, method, detail } = allowed;
  const senderName = organisation.customer_facing_name ?? organisation.name;
  const link = planLink(links.portal, organisation);
  const messageLinks = { replyAddress: links.replyAddress(debt.id), paymentLink: link.url };
  const rendered = await renderStep(reads.template, { debt, customer, organisation }, template.ref, template.method, messageLinks, { now, timeZone });
  const outcome = rendered.ok ? { ...rendered, rendered: adaptRendered(rendered.rendered, template.method, method, `Your ${senderName} account`) } : rendered;
  const input: OutboundInput = {
    debtId: debt.id,
    customerId: debt.customer_id,
    deliveryMethod: method,
    step,
    templateId: outcome.template?.id ?? null,
    templateVersion: outcome.template?.version ?? null,
    templateName: template.ref,
    contactDetailId: detail.id,
    // Stored without the link's token (docs/api.md section 18); the message itself carries it.
    subject: outcome.ok ? redactToken(outcome.rendered.subject, link.token) : null,
    body: outcome.ok ? redactToken(outcome.rendered.body, link.token) : null,
    ...(outcome.ok ? {} : { failure: outcome.reason }),
  };
  if (!outcome.ok) return { input, to: null };
  // Handed over at `now`: the batch's later debts of the customer count it toward the 7-day limit.
  reads.noteContact(debt, now);
  const name = customer.full_name ?? ([customer.first_name, customer.last_name].filter(Boolean).join(' ') || null);
  return {
    input,
    link,
    to: { value: detail.value, address: detail.address, name, senderName, subject: outcome.rendered.subject, body: outcome.rendered.body, timeZone },
  };
}
