/**
 * The built-in templates of the default collection strategy (docs/api.md section 13): a tenant
 * that has set no strategy, or whose strategy names one of these without having a template of
 * that name, gets this text; and those of the reminder of a pay-later promise the day before its
 * date (section 18 "Pay later"), in English and French. A tenant's own template of the same name
 * replaces it.
 */
import type { TemplateSource } from '@dms/templates';
import type { DeliveryMethod } from './schemas.js';

/** A built-in template: its name, channel and text. */
export interface BuiltInTemplate extends TemplateSource {
  name: string;
  delivery_method: DeliveryMethod;
}

const greeting = 'Dear {{ customer.full_name | default: customer.first_name | default: "customer" }},';
const greetingFr = 'Bonjour {{ customer.full_name | default: customer.first_name | default: "" }},';

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
    {
      name: 'default-email-promise-reminder',
      delivery_method: 'email',
      subject: 'Reminder: your payment to {{ organisation.customer_facing_name }} is due tomorrow',
      body: `<p>${greeting}</p><p>As you arranged, we will take your payment of {{ amounts.formatted.remaining }} for your {{ organisation.customer_facing_name }} account {{ debt.account_number }} tomorrow with the payment method you saved. Please make sure the funds are available. To see your account or change anything, go to {{ payment_link }} or reply to this email.</p>`,
    },
    {
      name: 'default-email-promise-reminder-fr',
      delivery_method: 'email',
      subject: 'Rappel : votre paiement à {{ organisation.customer_facing_name }} est prévu demain',
      body: `<p>${greetingFr}</p><p>Comme convenu, nous prélèverons demain votre paiement de {{ amounts.formatted.remaining }} pour votre compte {{ organisation.customer_facing_name }} {{ debt.account_number }} avec le moyen de paiement que vous avez enregistré. Merci de vous assurer que les fonds sont disponibles. Pour consulter votre compte ou modifier quoi que ce soit, rendez-vous sur {{ payment_link }} ou répondez à cet e-mail.</p>`,
    },
  ].map((t) => [t.name, t as BuiltInTemplate]),
);
