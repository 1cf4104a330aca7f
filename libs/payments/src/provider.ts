/**
 * The payment-provider interface (docs/api.md section 18 "Payments"): the
 * portal asks a provider for a checkout of one pending payment, sends the customer to it, and
 * learns the outcome only from the provider's signed callback, verified here. Amounts in minor units.
 */

/** What a checkout is for: a payment of a debt (its pending payment is then stored with the checkout's reference). */
export interface CheckoutRequest {
  tenantId: string;
  debtId: string;
  /** Minor units, > 0. */
  amount: number;
  /** ISO 4217. */
  currency: string;
}

/** A checkout the provider opened: its reference (the payment's `transaction_ref`) and where to send the customer. */
export interface Checkout {
  reference: string;
  url: string;
}

/** A verified outcome from the provider's callback. */
export interface PaymentOutcome {
  /** The provider's event id: the same id twice is one outcome (idempotency). */
  eventId: string;
  status: 'succeeded' | 'failed';
  tenantId: string;
  debtId: string;
  /** The checkout's reference: the payment's `transaction_ref`. */
  reference: string;
}

/** Why a callback is refused (the endpoint answers 400 and changes nothing). */
export class CallbackRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRejected';
  }
}

/** One payment provider. */
export interface PaymentProvider {
  /** Its name, stored as the payment's `payment_provider`. */
  readonly name: string;
  /** Opens a checkout for `req`. */
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  /**
   * Verifies a callback's raw body against its signature header and returns its outcome.
   * @throws CallbackRejected for a missing or wrong signature, a timestamp outside the tolerance, or a malformed body
   */
  verifyCallback(rawBody: string, signatureHeader: string | undefined, now?: Date): PaymentOutcome;
}
