/**
 * The customer's own settings and data in the portal (docs/api.md section 18, "Contact preferences"
 * and "Your data"), for a verified session:
 * - `/preferences`: the channels they accept (email, SMS, letter; at least one), the hours they
 *   prefer within 08:00-21:00 (the whole window: none), and their language → check → saved
 *   through `setContactPreferences` (the same field the API's `PATCH /customers/{id}` and an SMS
 *   `STOP` write, `changed_by` `portal`) with `customer.updated`;
 * - `GET /export`: the customer's export (`exportCustomer`, as the tenant's
 *   `GET /customers/{id}/export`) as a JSON attachment, recorded in the access log as
 *   `portal:export` like the debt pages.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Router } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { DELIVERY_METHODS } from '@dms/domain/communication-templates';
import { loadCustomer, setContactPreferences, type ContactPreferencesShown } from '@dms/domain/customers';
import { exportCustomer } from '@dms/domain/personal-data';
import { LANGUAGES } from '../i18n.js';
import { chosen, journeyRoutes, type Choice, type Journey } from '../steps.js';
import { logRead, requireCustomer } from './debts.js';

/** Whole hours offered, 08:00 to 21:00 (the allowed window, docs/api.md section 13). */
export const HOURS = Array.from({ length: 14 }, (_, i) => `${String(8 + i).padStart(2, '0')}:00`);
const WHOLE_WINDOW = `${HOURS[0]}-${HOURS.at(-1)}`;

const channelKey = (c: string) => `preferences:contact.channels.${c}`;
const languageKey = (l: string) => `preferences:contact.language.${l}`;

/** The contact preferences journey over `db`. */
function contactJourney(db: Knex): Journey<ContactPreferencesShown | null> {
  return {
    ns: 'preferences',
    id: 'contact',
    route: '/preferences',
    base: () => '/preferences',
    back: () => '/debts',
    // The session's customer, gone (erased or deleted) since: the 404 page.
    load: (req) =>
      loadCustomer(db, req.session.tenantId!, req.session.customerId!).then(
        (c) => c.contact_preferences ?? null,
        (err: unknown) => {
          if (err instanceof ApiError) return undefined;
          throw err;
        },
      ),
    refusal: () => undefined,
    steps: [
      {
        name: 'channels',
        kind: 'checkboxes',
        choices: () => DELIVERY_METHODS.map((c) => ({ value: c, key: channelKey(c) })),
        initial: (now) => now?.channels,
        read: (body) => {
          const given = ([] as unknown[]).concat(body.channels ?? []);
          const channels = DELIVERY_METHODS.filter((c) => given.includes(c));
          return channels.length > 0 && channels.length === given.length ? { value: channels } : { error: 'choose' };
        },
        shown: (v) => (v as string[]).map((c) => ({ value: c, key: channelKey(c) })),
      },
      {
        name: 'hours',
        kind: 'hours',
        choices: (): Choice[] => HOURS.map((h) => ({ value: h, text: h })),
        initial: (now) => (now?.hours ? `${now.hours.from}-${now.hours.until}` : undefined),
        read: (body) => {
          const [from, until] = [body.hours_from, body.hours_until];
          if (!HOURS.includes(from as string) || !HOURS.includes(until as string)) return { error: 'choose' };
          return (until as string) > (from as string) ? { value: `${from as string}-${until as string}` } : { error: 'order' };
        },
        shown: (v) => [{ value: v as string, text: (v as string).replace('-', ' – ') }],
      },
      {
        name: 'language',
        kind: 'radios',
        choices: () => LANGUAGES.map((l) => ({ value: l, key: languageKey(l) })),
        initial: (now) => now?.language ?? undefined,
        read: chosen('language', 'choose', () => LANGUAGES),
        shown: (v) => [{ value: v as string, key: languageKey(v as string) }],
      },
    ],
    submit: async (req, _ctx, a) => {
      const [from, until] = (a.hours as string).split('-') as [string, string];
      const hours = a.hours === WHOLE_WINDOW ? null : { from, until };
      const prefs = { channels: a.channels as (typeof DELIVERY_METHODS)[number][], hours, language: a.language as string };
      await setContactPreferences(db, req.session.tenantId!, req.session.customerId!, prefs, 'portal');
      req.session.lang = a.language as string;
    },
  };
}

/** The preferences and export routes over `db`. */
export function preferencesRoutes(db: Knex): Router {
  const r = Router();
  r.use(['/preferences', '/export'], requireCustomer);
  r.use(journeyRoutes(contactJourney(db)));
  r.get('/export', async (req, res) => {
    const customerId = req.session.customerId!;
    const chunks = await exportCustomer(db, req.session.tenantId!, customerId);
    await logRead(db, req, 'portal:export');
    res.status(200).type('application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${customerId}-export.json"`);
    await pipeline(Readable.from(chunks), res);
  });
  return r;
}
