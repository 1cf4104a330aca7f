/**
 * The built-in templates of the default collection strategy (docs/api.md section 13): a tenant
 * that has set no strategy, or whose strategy names one of these without having a template of
 * that name, gets this text. A tenant's own template of the same name replaces it.
 */
import type { TemplateSource } from '@dms/templates';
import type { DeliveryMethod } from './schemas.js';

/** A built-in template: its name, channel and text. */
export interface BuiltInTemplate extends TemplateSource {
  name: string;
  delivery_method: DeliveryMethod;
}

const greeting = 'Dear {{ customer.full_name | default: customer.first_name | default: "customer" }},';

/** The built-in templates, by name. */
export const BUILT_IN_TEMPLATES: Readonly<Record<string, BuiltInTemplate>> = Object.fromEntries(
  [
    {
      name: 'default-email-first',
      delivery_method: 'email',
      subject: 'Your {{ organisation.customer_facing_name }} account {{ debt.account_number }}',
      body: `<p>${greeting}</p><p>{{ amounts.formatted.remaining }} is outstanding on your {{ organisation.customer_facing_name }} account. Please pay at {{ payment_link }} or reply to this email to talk to us.</p>`,
    },
    {
      name: 'default-sms-reminder',
      delivery_method: 'sms',
      body: '{{ organisation.customer_facing_name }}: {{ amounts.formatted.remaining }} is outstanding. Pay at {{ payment_link }} or reply to this message.',
    },
    {
      name: 'default-letter-notice',
      delivery_method: 'letter',
      subject: 'Notice of outstanding balance',
      body: `${greeting}\n\n{{ amounts.formatted.remaining }} remains outstanding on your {{ organisation.customer_facing_name }} account {{ debt.account_number }}. Please pay at {{ payment_link }} or contact us.`,
    },
    {
      name: 'default-email-final',
      delivery_method: 'email',
      subject: 'Final reminder: your {{ organisation.customer_facing_name }} account',
      body: `<p>${greeting}</p><p>We have not heard from you. {{ amounts.formatted.remaining }} is still outstanding. Please pay at {{ payment_link }} or reply to this email.</p>`,
    },
  ].map((t) => [t.name, t as BuiltInTemplate]),
);
