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
  /**
   * Keep the card for later off-session charges (a continuous payment authority: a plan's
   * instalments or a pay-later promise); the outcome then carries `savedMethod`.
   */
  saveMethod?: boolean;
  /**
   * With `saveMethod`: save the method and charge nothing now (Stripe: a Checkout Session in
   * `setup` mode, a SetupIntent); `amount` is then what the first later charge will be, shown to
   * the customer. The portal's plans and pay-later promises use it: the worker charges each date.
   */
  setupOnly?: boolean;
}

/** A payment method saved at a checkout, charged later without the customer (`chargeSaved`). */
export interface SavedMethod {
  /** The provider's reference of the method (Stripe: `<Customer id>:<PaymentMethod id>`; local: `lpm_…`). */
  reference: string;
  /** What the customer recognises, e.g. `card ending 4242` (never the full number). */
  label: string;
}

/** An off-session charge of a saved method (minor units), idempotent by `idempotencyKey`. */
export interface ChargeRequest {
  tenantId: string;
  debtId: string;
  amount: number;
  currency: string;
  /** `SavedMethod.reference`. */
  method: string;
  /** The same key twice is one charge (e.g. the instalment's id). */
  idempotencyKey: string;
}

/**
 * What a charge did at once: `succeeded` or `failed` when the provider answered synchronously,
 * `pending` when the outcome comes later by the provider's callback (same `reference`).
 */
export interface ChargeResult {
  reference: string;
  status: 'succeeded' | 'failed' | 'pending';
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
  /** The method saved by a checkout opened with `saveMethod`, when it succeeded. */
  savedMethod?: SavedMethod;
}

/** A refund of (part of) a settled payment (minor units), idempotent by `idempotencyKey`. */
export interface RefundRequest {
  /** The payment's `transaction_ref` (a checkout's or a charge's reference). */
  reference: string;
  /** Minor units, > 0. */
  amount: number;
  /** The same key twice is one refund. */
  idempotencyKey: string;
}

/** What a refund did: its provider reference, and `succeeded`, `failed` or `pending` (the provider settles it later). */
export interface RefundResult {
  reference: string;
  status: 'succeeded' | 'failed' | 'pending';
}

/**
 * Why a provider did not do what it was asked (so far: a refund): `refused` when it answered no
 * (a 4xx: the payment cannot be refunded, the amount is too large) and `unavailable` when it could
 * not be reached, answered 5xx, or turned our own credentials or rate away (401, 403, 429). Either
 * way nothing happened at the provider; `code` is the provider's own error code when it gave one.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'refused' | 'unavailable',
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
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
  /** Charges a saved method without the customer (the worker's instalments and pay-later promises). */
  chargeSaved(req: ChargeRequest): Promise<ChargeResult>;
  /**
   * Refunds `req.amount` of the payment with reference `req.reference`, once per `req.idempotencyKey`.
   * @throws ProviderError `refused` or `unavailable` (nothing refunded)
   */
  refund(req: RefundRequest): Promise<RefundResult>;
  /**
   * Verifies a callback's raw body against its signature header and returns its outcome, or
   * undefined for a verified event that reports no outcome (answered 200, nothing changed).
   * @throws CallbackRejected for a missing or wrong signature, a timestamp outside the tolerance, or a malformed body
   */
  verifyCallback(rawBody: string, signatureHeader: string | undefined, now?: Date): Promise<PaymentOutcome | undefined>;
}
