/**
 * Choosing the payment provider from settings (docs/api.md section 18 "Payments", providers):
 * `stripe` without its keys stops with one line naming them (the portal's settings and the API's);
 * `local` needs nothing; the local provider's refunds are deterministic by idempotency key; a
 * Stripe failure is a refusal (4xx) or the provider unavailable (no answer, 5xx, our credentials
 * or rate); the API refunds through the configured provider only, by name.
 */
import { describe, expect, test } from '@jest/globals';
import Stripe from 'stripe';
import { ConfigError } from '@dms/config';
import {
  ProviderError,
  stripeFailure,
  localProvider,
  localSavedMethod,
  paymentProvider,
  paymentProviders,
  paymentSettingsProblems,
  type PaymentSettings,
} from '../../libs/payments/src/index.js';
import { loadPortalConfig } from '@dms/portal/config';
import { loadApiConfig } from '../../services/api/src/config.js';
import { providerRefunds } from '../../services/api/src/payments.js';

const base: PaymentSettings = {
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: '',
  STRIPE_WEBHOOK_SECRET: '',
  STRIPE_API_HOST: '',
  STRIPE_API_PORT: 443,
  STRIPE_API_PROTOCOL: 'https',
};
const ctx = { secretsKey: 'k', portalBaseUrl: 'http://localhost:3005' };

describe('the provider factory', () => {
  test('stripe without keys: one line naming both settings and what to set', () => {
    expect(() => paymentProvider(base, ctx)).toThrow(ConfigError);
    expect(() => paymentProvider(base, ctx)).toThrow(
      /^config error: STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER is stripe: set the secret key \(sk_live_… or sk_test_…\) .*; STRIPE_WEBHOOK_SECRET: required when PAYMENT_PROVIDER is stripe/,
    );
    expect(paymentSettingsProblems({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc' })).toEqual([expect.stringMatching(/^STRIPE_WEBHOOK_SECRET: /)]);
    expect(paymentSettingsProblems({ ...base, STRIPE_SECRET_KEY: 'pk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_x' })).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY: /),
    ]);
  });

  test('stripe with its keys, and local with none, build the provider of that name', () => {
    expect(paymentProvider({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }, ctx).name).toBe('stripe');
    expect(paymentProvider({ ...base, PAYMENT_PROVIDER: 'local' }, ctx).name).toBe('local');
    expect(() => paymentProvider({ ...base, PAYMENT_PROVIDER: 'paypal' }, ctx)).toThrow(/PAYMENT_PROVIDER: "paypal" is not allowed/);
  });

  test("the portal's settings refuse stripe without keys, and an unknown provider, with one line", () => {
    expect(() => loadPortalConfig({ PAYMENT_PROVIDER: 'stripe' }, false)).toThrow(/^config error: STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER is stripe/);
    expect(() => loadPortalConfig({ PAYMENT_PROVIDER: 'paypal' }, false)).toThrow(/PAYMENT_PROVIDER: "paypal" is not allowed: set one of local, stripe/);
    const cfg = loadPortalConfig({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' }, false);
    expect(cfg).toMatchObject({ PAYMENT_PROVIDER: 'stripe', STRIPE_API_HOST: '' });
  });
});

describe("the worker's lookup by name", () => {
  test('builds a provider once and charges saved local methods: 4242 succeeds, 0341 fails, idempotent by key', async () => {
    const byName = paymentProviders({ ...base, PAYMENT_PROVIDER: 'local' }, ctx);
    expect(byName('local')).toBe(byName('local'));
    const req = { tenantId: 'ten_x', debtId: 'deb_x', amount: 500, currency: 'GBP', idempotencyKey: 'pp_x:1:2026-01-01' };
    const ok = await byName('local').chargeSaved({ ...req, method: localSavedMethod('4242424242424242').reference });
    const again = await byName('local').chargeSaved({ ...req, method: localSavedMethod('4242424242424242').reference });
    expect(ok.status).toBe('succeeded');
    expect(again.reference).toBe(ok.reference);
    expect((await byName('local').chargeSaved({ ...req, method: localSavedMethod('4000000000000341').reference })).status).toBe('failed');
    // A plan saved with stripe while the worker has no stripe keys: refused naming the settings, on use.
    expect(() => byName('stripe')).toThrow(/^config error: STRIPE_SECRET_KEY: required/);
    expect(() => byName('acme')).toThrow(/PAYMENT_PROVIDER: "acme" is not allowed/);
  });
});

describe('local refunds', () => {
  test('succeeded at once; the same idempotency key is the same lre_ reference, another key another', async () => {
    const p = localProvider('secret');
    const one = await p.refund({ reference: 'lcs_1', amount: 100, idempotencyKey: 'r1' });
    expect(one).toEqual({ reference: expect.stringMatching(/^lre_[\w-]{24}$/), status: 'succeeded' });
    expect(await p.refund({ reference: 'lcs_1', amount: 100, idempotencyKey: 'r1' })).toEqual(one);
    expect((await p.refund({ reference: 'lcs_1', amount: 100, idempotencyKey: 'r2' })).reference).not.toBe(one.reference);
  });
});

describe("the API's provider", () => {
  test("its settings refuse stripe without keys with one line, as the portal's", () => {
    expect(() => loadApiConfig({ PAYMENT_PROVIDER: 'stripe' }, false)).toThrow(/^config error: STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER is stripe/);
    expect(loadApiConfig({}, false)).toMatchObject({ PAYMENT_PROVIDER: 'local', STRIPE_API_PORT: 443 });
  });

  test('refunds through the configured provider only, by its name', async () => {
    const local = providerRefunds({ ...base, PAYMENT_PROVIDER: 'local', PORTAL_BASE_URL: 'http://localhost:3005' }, 'k');
    expect(await local('local')!({ reference: 'lcs_1', amount: 100, idempotencyKey: 'r1' })).toMatchObject({ status: 'succeeded' });
    expect(local('stripe')).toBeUndefined();
    expect(local('Acme Pay')).toBeUndefined();
    const stripe = providerRefunds(
      { ...base, STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', PORTAL_BASE_URL: 'http://localhost:3005' },
      'k',
    );
    expect(stripe('stripe')).toBeInstanceOf(Function);
    expect(stripe('local')).toBeUndefined();
  });
});

describe('stripe failures', () => {
  const raw = (statusCode: number, code?: string) => ({ type: 'invalid_request_error' as const, message: 'no', statusCode, code });
  test.each([
    ['400', new Stripe.errors.StripeInvalidRequestError(raw(400, 'charge_disputed')), 'refused', 'charge_disputed'],
    ['402', new Stripe.errors.StripeCardError({ ...raw(402, 'card_declined'), type: 'card_error' }), 'refused', 'card_declined'],
    ['404', new Stripe.errors.StripeInvalidRequestError(raw(404, 'resource_missing')), 'refused', 'resource_missing'],
    ['401 (our key)', new Stripe.errors.StripeAuthenticationError({ ...raw(401), type: 'authentication_error' }), 'unavailable', undefined],
    ['429 (our rate)', new Stripe.errors.StripeRateLimitError({ ...raw(429, 'rate_limit'), type: 'rate_limit_error' }), 'unavailable', 'rate_limit'],
    ['500', new Stripe.errors.StripeAPIError({ ...raw(500), type: 'api_error' }), 'unavailable', undefined],
    ['no connection', new Stripe.errors.StripeConnectionError({ message: 'ECONNREFUSED', type: 'api_error' }), 'unavailable', undefined],
    ['any other error', new Error('socket hang up'), 'unavailable', undefined],
  ])('%s (%s): %s', (_, err, kind, code) => {
    const failure = stripeFailure(err);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ kind, code });
  });
});
