/**
 * The collection strategy of an organisation (docs/api.md section 13), the `collection_strategy`
 * key of its `configurations`: an ordered list of steps `{day, delivery_method, template}`, days
 * counted from the debt's first contact (`contacted`), and the most contacts a customer may
 * receive in 7 days (section 12). An organisation without one gets `DEFAULT_STRATEGY`.
 *
 * A step names a template of the tenant (by name or id) for its channel, or one of the built-in
 * templates (communication-templates/defaults.ts); anything else is 400 naming the step's field.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { BUILT_IN_TEMPLATES } from '../communication-templates/defaults.js';
import { communicationTemplatesResource } from '../communication-templates/resource.js';
import { DELIVERY_METHODS } from '../communication-templates/schemas.js';
import { tenantRows } from '../kernel/scoped.js';
import { StringEnum, Type, type Static } from '../kernel/schemas.js';

/** Most steps a strategy may have. */
export const MAX_STEPS = 20;

/** One step: on `day` after first contact (0: the first contact), send `template` by `delivery_method`. */
export const StrategyStep = Type.Object(
  {
    day: Type.Integer({ minimum: 0, maximum: 365, description: 'Days after the first contact (`contacted`); 0 is the first contact itself.' }),
    delivery_method: StringEnum(DELIVERY_METHODS, { description: 'The channel of the step.' }),
    template: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Name or id of the tenant's template for that channel, or a built-in template's name.",
    }),
  },
  { additionalProperties: false },
);

/** `configurations.collection_strategy`. */
export const CollectionStrategy = Type.Object(
  {
    steps: Type.Array(StrategyStep, { minItems: 1, maxItems: MAX_STEPS, description: 'The steps, days not decreasing.' }),
    contacts_per_7_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'Most outbound communications a customer receives in any 7 days (default 3).' }),
    ),
  },
  { additionalProperties: false, description: 'How the collection engine works debts of this organisation (docs/api.md section 13).' },
);
export type CollectionStrategy = Static<typeof CollectionStrategy>;
export type StrategyStep = Static<typeof StrategyStep>;

/** Contacts per customer per 7 days when a strategy does not say (section 12). */
export const DEFAULT_CONTACTS_PER_7_DAYS = 3;

/** The strategy of an organisation that has set none: email at once, SMS on day 3, a letter on day 14, a last email on day 30. */
export const DEFAULT_STRATEGY: CollectionStrategy = {
  steps: [
    { day: 0, delivery_method: 'email', template: 'default-email-first' },
    { day: 3, delivery_method: 'sms', template: 'default-sms-reminder' },
    { day: 14, delivery_method: 'letter', template: 'default-letter-notice' },
    { day: 30, delivery_method: 'email', template: 'default-email-final' },
  ],
  contacts_per_7_days: DEFAULT_CONTACTS_PER_7_DAYS,
};

/** The strategy an organisation's `configurations` set, or the default. */
export function strategyOf(configurations: { collection_strategy?: CollectionStrategy }): CollectionStrategy {
  return configurations.collection_strategy ?? DEFAULT_STRATEGY;
}

const bad = (param: string, message: string) => new ApiError('validation_failed', `${param}: ${message}`, { param, errors: [{ param, message }] });

/**
 * Checks what the schema cannot: days do not decrease, and each step's template is the tenant's
 * (by name or id) or built in, written for the step's channel.
 * @throws ApiError 400 `validation_failed`, `param` e.g. `configurations.collection_strategy.steps[1].template`
 */
export async function checkStrategy(db: Knex | Knex.Transaction, tenantId: string, strategy: CollectionStrategy | undefined): Promise<void> {
  if (!strategy) return;
  const at = (i: number, field: string) => `configurations.collection_strategy.steps[${i}].${field}`;
  const refs = [...new Set(strategy.steps.map((s) => s.template))];
  const rows: Array<{ id: string; name: string; delivery_method: string }> = await tenantRows(db, communicationTemplatesResource, tenantId)
    .where((q) => void q.whereIn('communication_templates.name', refs).orWhereIn('communication_templates.id', refs))
    .select('id', 'name', 'delivery_method');
  for (const [i, step] of strategy.steps.entries()) {
    if (i > 0 && step.day < strategy.steps[i - 1]!.day) throw bad(at(i, 'day'), 'days must not decrease from one step to the next');
    const found = rows.find((r) => r.name === step.template || r.id === step.template) ?? BUILT_IN_TEMPLATES[step.template];
    if (!found) throw bad(at(i, 'template'), `no communication template named '${step.template}'`);
    if (found.delivery_method !== step.delivery_method)
      throw bad(at(i, 'template'), `template '${step.template}' is for ${found.delivery_method}, not ${step.delivery_method}`);
  }
}
