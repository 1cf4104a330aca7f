/**
 * The API's payment provider (docs/api.md sections 8 and 18 "Payments"): the portal's, chosen by
 * the same settings (`PAYMENT_PROVIDER`, `STRIPE_*`) through the payments library's factory. A
 * refund of a payment the platform took through that provider (`provider_managed`, its
 * `payment_provider` the provider's name) goes through it; any other payment, a tenant's own even
 * under the same name, is refunded in the ledger only.
 */
import type { RefundThrough } from '@dms/domain/payments';
import { paymentProvider, type PaymentSettings } from '@dms/payments';

/**
 * The refunds of the provider `cfg` chooses, by name (undefined for any other name).
 * @throws ConfigError when `stripe` is chosen without its keys (loadApiConfig has checked them)
 */
export function providerRefunds(cfg: PaymentSettings & { PORTAL_BASE_URL: string }, secretsKey: string): RefundThrough {
  const provider = paymentProvider(cfg, { secretsKey, portalBaseUrl: cfg.PORTAL_BASE_URL });
  return (name) => (name === provider.name ? (req) => provider.refund(req) : undefined);
}
