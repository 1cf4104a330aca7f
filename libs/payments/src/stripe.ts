/**
 * The `stripe` payment provider (docs/api.md section 18 "Payments", providers), on the official
 * `stripe` package: a checkout is a hosted Checkout Session (mode `payment`; with `saveMethod`,
 * a Stripe customer and `setup_future_usage: off_session`; with `setupOnly`, mode `setup` for a
 * customer made first, nothing charged), a saved method is charged by an
 * off-session PaymentIntent, a refund is a Refund, and outcomes come from Stripe's signed webhook
 * events (`Stripe-Signature`, verified by `stripe.webhooks.constructEvent`). Amounts in minor units.
 */
import Stripe from 'stripe';
import {
  CallbackRejected,
  type ChargeRequest,
  type ChargeResult,
  type Checkout,
  type CheckoutRequest,
  type PaymentOutcome,
  type PaymentProvider,
  ProviderError,
  type RefundRequest,
  type RefundResult,
  type SavedMethod,
} from './provider.js';

/** Settings of the Stripe provider. */
export interface StripeSettings {
  /** The secret API key (`sk_…`). */
  secretKey: string;
  /** The webhook endpoint's signing secret (`whsec_…`). */
  webhookSecret: string;
  /** The portal's public base URL: the customer comes back to `<base>/checkout/stripe/<session id>`. */
  returnBaseUrl: string;
  /** Another API host (tests point the package at a local fake); Stripe's own by default. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/** The events that report an outcome; any other verified event is answered 200 and changes nothing. */
export const STRIPE_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
] as const;

/** Metadata `origin` of the PaymentIntents made by `chargeSaved` (a checkout's own intent reports through its session's events). */
const CHARGE_ORIGIN = 'charge';

/** The status of a PaymentIntent as a charge result: `succeeded`, `failed` (needs another method, or canceled) or `pending`. */
export function intentStatus(status: Stripe.PaymentIntent.Status): ChargeResult['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'requires_payment_method' || status === 'canceled') return 'failed';
  return 'pending';
}

/** The `stripe` provider with `settings`. */
export function stripeProvider(settings: StripeSettings): PaymentProvider {
  const stripe = new Stripe(settings.secretKey, {
    host: settings.host,
    port: settings.port,
    protocol: settings.protocol,
    maxNetworkRetries: 2,
    appInfo: { name: 'dms-portal' },
  });
  const back = `${settings.returnBaseUrl.replace(/\/$/, '')}/checkout/stripe/{CHECKOUT_SESSION_ID}`;

  /**
   * The saved method of a checkout session: its customer and the PaymentMethod of its intent (a
   * `payment` session) or of its SetupIntent (a `setup` one), labelled by the card's last four digits.
   */
  async function savedMethodOf(sessionId: string, mode: Stripe.Checkout.Session.Mode): Promise<SavedMethod | undefined> {
    const via = mode === 'setup' ? 'setup_intent' : 'payment_intent';
    const s = await stripe.checkout.sessions.retrieve(sessionId, { expand: [`${via}.payment_method`] });
    const intent = s[via];
    const method = intent && typeof intent === 'object' && typeof intent.payment_method === 'object' ? intent.payment_method : null;
    const customer = typeof s.customer === 'string' ? s.customer : s.customer?.id;
    if (!method || !customer) return undefined;
    const last4 = method.card?.last4;
    return { reference: `${customer}:${method.id}`, label: last4 ? `card ending ${last4}` : 'saved card' };
  }

  /** The outcome of a verified `event`, or undefined when it reports none. */
  async function outcomeOf(event: Stripe.Event): Promise<PaymentOutcome | undefined> {
    if (!(STRIPE_EVENTS as readonly string[]).includes(event.type)) return undefined;
    if (event.type.startsWith('checkout.session.')) {
      const s = event.data.object as Stripe.Checkout.Session;
      const status =
        event.type === 'checkout.session.async_payment_succeeded' || (event.type === 'checkout.session.completed' && s.payment_status !== 'unpaid')
          ? 'succeeded'
          : event.type === 'checkout.session.async_payment_failed' || event.type === 'checkout.session.expired'
            ? 'failed'
            : undefined;
      if (!status) return undefined;
      const savedMethod = status === 'succeeded' && s.metadata?.save_method === 'true' ? await savedMethodOf(s.id, s.mode) : undefined;
      return withParties(event, s.metadata, { status, reference: s.id, savedMethod });
    }
    if (event.type === 'payment_intent.succeeded' || event.type === 'payment_intent.payment_failed') {
      const pi = event.data.object;
      if (pi.metadata?.origin !== CHARGE_ORIGIN) return undefined;
      return withParties(event, pi.metadata, { status: event.type === 'payment_intent.succeeded' ? 'succeeded' : 'failed', reference: pi.id });
    }
    return undefined;
  }

  return {
    name: 'stripe',
    async createCheckout(req: CheckoutRequest): Promise<Checkout> {
      const metadata = { tenant: req.tenantId, debt: req.debtId, save_method: String(req.saveMethod === true || req.setupOnly === true) };
      const session = req.setupOnly
        ? // Setup mode saves a card for later charges and takes nothing; its method is attached to a customer made first.
          await stripe.checkout.sessions.create({
            mode: 'setup',
            currency: req.currency.toLowerCase(),
            customer: (await stripe.customers.create({ metadata: { tenant: req.tenantId, debt: req.debtId } })).id,
            metadata,
            setup_intent_data: { metadata },
            success_url: back,
            cancel_url: back,
          })
        : await stripe.checkout.sessions.create({
            mode: 'payment',
            line_items: [{ quantity: 1, price_data: { currency: req.currency.toLowerCase(), unit_amount: req.amount, product_data: { name: 'Payment' } } }],
            metadata,
            payment_intent_data: { metadata, ...(req.saveMethod ? { setup_future_usage: 'off_session' as const } : {}) },
            ...(req.saveMethod ? { customer_creation: 'always' as const } : {}),
            success_url: back,
            cancel_url: back,
          });
      if (!session.url) throw new Error('Stripe returned a checkout session without a url');
      return { reference: session.id, url: session.url };
    },
    /** An off-session PaymentIntent of the saved `<customer>:<payment method>`; a decline is `failed`, not an error. */
    async chargeSaved(req: ChargeRequest): Promise<ChargeResult> {
      const [customer, method] = req.method.split(':');
      if (!customer?.startsWith('cus_') || !method) throw new Error('not a saved method of the stripe provider');
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: req.amount,
            currency: req.currency.toLowerCase(),
            customer,
            payment_method: method,
            off_session: true,
            confirm: true,
            metadata: { tenant: req.tenantId, debt: req.debtId, origin: CHARGE_ORIGIN },
          },
          { idempotencyKey: req.idempotencyKey },
        );
        return { reference: pi.id, status: intentStatus(pi.status) };
      } catch (err) {
        // A declined card or one needing the customer: Stripe answers 402 with the intent in the error.
        const pi = err instanceof Stripe.errors.StripeCardError ? err.payment_intent : undefined;
        if (pi) return { reference: pi.id, status: 'failed' };
        throw err;
      }
    },
    /**
     * A Refund of the payment's intent (a checkout's reference is its session: its intent is looked up).
     * @throws ProviderError (stripeFailure)
     */
    async refund(req: RefundRequest): Promise<RefundResult> {
      try {
        let intent = req.reference;
        if (intent.startsWith('cs_')) {
          const s = await stripe.checkout.sessions.retrieve(intent);
          const pi = typeof s.payment_intent === 'string' ? s.payment_intent : s.payment_intent?.id;
          if (!pi) throw new ProviderError('refused', 'the checkout session has no payment to refund', 'no_payment');
          intent = pi;
        }
        const r = await stripe.refunds.create({ payment_intent: intent, amount: req.amount }, { idempotencyKey: req.idempotencyKey });
        const status = r.status === 'succeeded' ? 'succeeded' : r.status === 'failed' || r.status === 'canceled' ? 'failed' : 'pending';
        return { reference: r.id, status };
      } catch (err) {
        throw stripeFailure(err);
      }
    },
    async verifyCallback(rawBody: string, header: string | undefined, now?: Date): Promise<PaymentOutcome | undefined> {
      let event: Stripe.Event;
      try {
        const receivedAt = now ? Math.floor(now.getTime() / 1000) : undefined;
        event = stripe.webhooks.constructEvent(rawBody, header ?? '', settings.webhookSecret, undefined, undefined, receivedAt);
      } catch (err) {
        throw new CallbackRejected(err instanceof Error ? `The signature does not verify: ${err.message}` : 'The signature does not verify.');
      }
      return outcomeOf(event);
    },
  };
}

/** Statuses of Stripe's answers that say more about us (credentials, rate) than about the request: unavailable, not refused. */
const OUR_SIDE = new Set([401, 403, 429]);

/**
 * `err` (thrown by the package or by us) as a `ProviderError`: a 4xx answer is `refused` (but
 * 401, 403 and 429), anything else (no connection, a timeout, a 5xx) `unavailable`.
 */
export function stripeFailure(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof Stripe.errors.StripeError) {
    const status = err.statusCode;
    const refused = status !== undefined && status >= 400 && status < 500 && !OUR_SIDE.has(status);
    return new ProviderError(refused ? 'refused' : 'unavailable', err.message, err.code, { cause: err });
  }
  return new ProviderError('unavailable', err instanceof Error ? err.message : String(err), undefined, { cause: err });
}

/** The outcome of `event` with the tenant and debt of its `metadata`; undefined without them (not a payment of ours: answered 200, ignored). */
function withParties(
  event: Stripe.Event,
  metadata: Stripe.Metadata | null | undefined,
  o: Pick<PaymentOutcome, 'status' | 'reference' | 'savedMethod'>,
): PaymentOutcome | undefined {
  const tenantId = metadata?.tenant;
  const debtId = metadata?.debt;
  if (!tenantId || !debtId) return undefined;
  return { eventId: event.id, tenantId, debtId, ...o };
}
