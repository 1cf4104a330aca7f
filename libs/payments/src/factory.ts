/**
 * Choosing the payment provider from settings (docs/api.md section 18 "Payments", providers):
 * `PAYMENT_PROVIDER` is `local` (the hosted test checkout) or `stripe` (which then needs
 * `STRIPE_SECRET_KEY` and `STRIPE_WEBHOOK_SECRET`; `STRIPE_API_HOST`/`PORT`/`PROTOCOL` point the
 * package at another API, for tests). A service spreads `paymentSettingsSpec()` into its own spec.
 * The portal opens checkouts with the chosen provider (`paymentProvider`); the worker keeps every
 * provider it has settings for (`paymentProviders`), since a plan is charged through the provider
 * that saved its method.
 */
import { ConfigError, port, str } from '@dms/config';
import { localCallbackSecret, localProvider } from './local.js';
import type { PaymentProvider } from './provider.js';
import { stripeProvider } from './stripe.js';

/** The providers by name. */
export const PAYMENT_PROVIDERS = ['local', 'stripe'] as const;

/** envalid spec of the payment settings (listed in each service's settings table). */
export function paymentSettingsSpec() {
  return {
    PAYMENT_PROVIDER: str({
      default: 'local',
      choices: [...PAYMENT_PROVIDERS],
      desc: 'Payment provider: `local` (hosted test checkout with Stripe test cards, signed callbacks) or `stripe` (Checkout Sessions and webhooks; needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET); docs/api.md section 18',
    }),
    STRIPE_SECRET_KEY: str({ default: '', desc: 'Stripe secret API key (`sk_live_…` or `sk_test_…`), required when PAYMENT_PROVIDER is `stripe`' }),
    STRIPE_WEBHOOK_SECRET: str({
      default: '',
      desc: 'Signing secret (`whsec_…`) of the Stripe webhook endpoint `<PORTAL_BASE_URL>/callbacks/payments/stripe`, required when PAYMENT_PROVIDER is `stripe`',
    }),
    STRIPE_API_HOST: str({ default: '', desc: "Another Stripe API host (tests' fake); empty = Stripe's own" }),
    STRIPE_API_PORT: port({ default: 443, desc: 'Port of STRIPE_API_HOST' }),
    STRIPE_API_PROTOCOL: str({ default: 'https', choices: ['http', 'https'], desc: 'Protocol of STRIPE_API_HOST' }),
  };
}

/** The settings the factory reads (a service's loaded config has them). */
export interface PaymentSettings {
  PAYMENT_PROVIDER: string;
  STRIPE_SECRET_KEY: string;
  STRIPE_WEBHOOK_SECRET: string;
  STRIPE_API_HOST: string;
  STRIPE_API_PORT: number;
  STRIPE_API_PROTOCOL: string;
}

/** What the providers need besides settings. */
export interface ProviderContext {
  /** The secrets key (the local provider's callback secret is derived from it, never the key itself). */
  secretsKey: string;
  /** The portal's public base URL (Stripe sends the customer back under it). */
  portalBaseUrl: string;
}

/** The one-line problems of `s` (empty when the chosen provider has what it needs): `NAME: what to set`. */
export function paymentSettingsProblems(s: PaymentSettings): string[] {
  if (s.PAYMENT_PROVIDER !== 'stripe') return [];
  const problems: string[] = [];
  if (!/^[sr]k_(live|test)_\w+$/.test(s.STRIPE_SECRET_KEY))
    problems.push('STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER is stripe: set the secret key (sk_live_… or sk_test_…) from the Stripe dashboard');
  if (!/^whsec_\w+$/.test(s.STRIPE_WEBHOOK_SECRET))
    problems.push("STRIPE_WEBHOOK_SECRET: required when PAYMENT_PROVIDER is stripe: set the webhook endpoint's signing secret (whsec_…)");
  return problems;
}

/**
 * The provider named `name` (default: the one `s` chooses).
 * @throws ConfigError `config error: NAME: …; NAME: …` when `stripe` is named without its keys, or an unknown name
 */
export function paymentProvider(s: PaymentSettings, ctx: ProviderContext, name: string = s.PAYMENT_PROVIDER): PaymentProvider {
  if (name === 'local') return localProvider(localCallbackSecret(ctx.secretsKey));
  if (name !== 'stripe') throw new ConfigError(`config error: PAYMENT_PROVIDER: "${name}" is not allowed: set local or stripe`);
  const problems = paymentSettingsProblems({ ...s, PAYMENT_PROVIDER: 'stripe' });
  if (problems.length > 0) throw new ConfigError(`config error: ${problems.join('; ')}`);
  return stripeProvider({
    secretKey: s.STRIPE_SECRET_KEY,
    webhookSecret: s.STRIPE_WEBHOOK_SECRET,
    returnBaseUrl: ctx.portalBaseUrl,
    ...(s.STRIPE_API_HOST ? { host: s.STRIPE_API_HOST, port: s.STRIPE_API_PORT, protocol: s.STRIPE_API_PROTOCOL as 'http' | 'https' } : {}),
  });
}

/**
 * Every provider by name, each built once on first use (the worker charges each plan through the
 * provider that saved its method).
 * @throws ConfigError on first use of a name `paymentProvider` refuses
 */
export function paymentProviders(s: PaymentSettings, ctx: ProviderContext): (name: string) => PaymentProvider {
  const built = new Map<string, PaymentProvider>();
  return (name) => {
    let provider = built.get(name);
    if (!provider) built.set(name, (provider = paymentProvider(s, ctx, name)));
    return provider;
  };
}
