/**
 * Choosing payment providers by name (libs/payments/src/factory.ts, docs/api.md section 18 "The
 * worker's charges"): `PAYMENT_PROVIDER` defaults to `local`, an unknown name is refused naming
 * the setting, and the worker's lookup builds each provider once.
 */
import { describe, expect, test } from '@jest/globals';
import { PROVIDER_FACTORIES, localSavedMethod, paymentProviderFromEnv, paymentProviders } from '../../libs/payments/src/index.js';

const ctx = (env: NodeJS.ProcessEnv = {}) => ({ env, secretsKey: 'test-secrets-key' });

describe('payment provider factory', () => {
  test('PAYMENT_PROVIDER unset or local is the local provider; an unknown name is refused naming the setting', () => {
    expect(paymentProviderFromEnv(ctx()).name).toBe('local');
    expect(paymentProviderFromEnv(ctx({ PAYMENT_PROVIDER: 'local' })).name).toBe('local');
    expect(() => paymentProviderFromEnv(ctx({ PAYMENT_PROVIDER: 'acme' }))).toThrow(/PAYMENT_PROVIDER: unknown provider 'acme' \(known: local/);
    expect(Object.keys(PROVIDER_FACTORIES)).toContain('local');
  });

  test('the lookup builds a provider once and charges saved local methods: 4242 succeeds, 0341 fails, idempotent by key', async () => {
    const byName = paymentProviders(ctx());
    expect(byName('local')).toBe(byName('local'));
    const req = { tenantId: 'ten_x', debtId: 'deb_x', amount: 500, currency: 'GBP', idempotencyKey: 'pp_x:1:2026-01-01' };
    const ok = await byName('local').chargeSaved({ ...req, method: localSavedMethod('4242424242424242').reference });
    const again = await byName('local').chargeSaved({ ...req, method: localSavedMethod('4242424242424242').reference });
    expect(ok.status).toBe('succeeded');
    expect(again.reference).toBe(ok.reference);
    expect((await byName('local').chargeSaved({ ...req, method: localSavedMethod('4000000000000341').reference })).status).toBe('failed');
    expect(() => byName('acme')).toThrow(/unknown provider/);
  });
});
