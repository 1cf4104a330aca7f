/**
 * Choosing payment providers by name (docs/api.md section 18 "Payments"): `PAYMENT_PROVIDER`
 * (default `local`) names the one the portal opens checkouts with; the worker keeps every known
 * provider, since a plan is charged through the provider that saved its method. A new provider is
 * one more entry of `PROVIDER_FACTORIES`.
 */
import { localCallbackSecret, localProvider } from './local.js';
import type { PaymentProvider } from './provider.js';

/** What a provider is built from: the environment (its own settings) and the service's secrets key. */
export interface ProviderContext {
  env: NodeJS.ProcessEnv;
  /** The service's secrets key; the local provider derives its callback secret from it. */
  secretsKey: string;
}

/** Builds one provider. */
export type ProviderFactory = (ctx: ProviderContext) => PaymentProvider;

/** Every provider by name. */
export const PROVIDER_FACTORIES: Record<string, ProviderFactory> = {
  local: ({ secretsKey }) => localProvider(localCallbackSecret(secretsKey)),
};

/** The names `PAYMENT_PROVIDER` may take. */
export const PROVIDER_NAMES = (): string[] => Object.keys(PROVIDER_FACTORIES);

/**
 * The provider `PAYMENT_PROVIDER` names (default `local`).
 * @throws Error naming the setting when the name is unknown
 */
export function paymentProviderFromEnv(ctx: ProviderContext, name: string = ctx.env.PAYMENT_PROVIDER || 'local'): PaymentProvider {
  const factory = PROVIDER_FACTORIES[name];
  if (!factory) throw new Error(`PAYMENT_PROVIDER: unknown provider '${name}' (known: ${PROVIDER_NAMES().join(', ')})`);
  return factory(ctx);
}

/**
 * Every provider, by name, built lazily on first use (the worker charges each plan through the
 * provider that saved its method).
 */
export function paymentProviders(ctx: ProviderContext): (name: string) => PaymentProvider {
  const built = new Map<string, PaymentProvider>();
  return (name) => {
    let provider = built.get(name);
    if (!provider) built.set(name, (provider = paymentProviderFromEnv(ctx, name)));
    return provider;
  };
}
