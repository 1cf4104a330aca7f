/**
 * Choosing the payment provider from settings (docs/api.md section 18 "Payments", providers):
 * `stripe` without its keys stops with one line naming them; `local` needs nothing; the local
 * provider's refunds are deterministic by idempotency key.
 */
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@dms/config';
import {
  localProvider,
  localSavedMethod,
  paymentProvider,
  paymentProviders,
  paymentSettingsProblems,
  type PaymentSettings,
} from '../../libs/payments/src/index.js';
import { loadPortalConfig } from '@dms/portal/config';

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
