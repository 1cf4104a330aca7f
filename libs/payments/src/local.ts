/**
 * The `local` payment provider (docs/api.md section 18): a hosted test checkout served by the portal
 * at `/checkout/local/<reference>`, taking the card numbers Stripe documents for tests, whose
 * outcome comes back as a signed callback (signature.ts) like a real provider's webhook.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  CallbackRejected,
  type ChargeRequest,
  type ChargeResult,
  type Checkout,
  type CheckoutRequest,
  type PaymentOutcome,
  type PaymentProvider,
  type RefundRequest,
  type RefundResult,
  type SavedMethod,
} from './provider.js';
import { signatureHeader, verifySignature } from './signature.js';

/**
 * What a test card does: succeed, be declined, need the customer to authenticate first, or (as
 * Stripe's `4000 0000 0000 0341`) be saved at checkout and then fail every later charge.
 */
export type CardBehaviour = 'succeeds' | 'declined' | 'authenticate' | 'later_declined';

/** Stripe's documented test cards (digits only) and their behaviour; any other number is declined. */
export const TEST_CARDS: Record<string, CardBehaviour> = {
  '4242424242424242': 'succeeds',
  '4000000000000002': 'declined',
  '4000002500003155': 'authenticate',
  '4000000000000341': 'later_declined',
};

/**
 * The saved method of the test card `digits` (its behaviour and last four digits in the reference,
 * so the stateless local provider knows at charge time what the card does).
 */
export function localSavedMethod(digits: string): SavedMethod {
  const behaviour = TEST_CARDS[digits] === 'later_declined' ? 'd' : 's';
  const last4 = digits.slice(-4);
  return { reference: `lpm_${behaviour}${last4}_${randomBytes(9).toString('base64url')}`, label: `card ending ${last4}` };
}

/** The behaviour of card number `given` (spaces and dashes ignored), or undefined when not 12-19 digits. */
export function cardBehaviour(given: string): CardBehaviour | undefined {
  const digits = given.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return undefined;
  return TEST_CARDS[digits] ?? 'declined';
}

/** The callback secret of the local provider, derived from the secrets key (never the key itself). */
export function localCallbackSecret(secretsKey: string): string {
  return createHmac('sha256', secretsKey).update('payments:local-callback').digest('base64url');
}

/** The local provider with its callback `secret`, plus `signedOutcome` used by its checkout page. */
export function localProvider(secret: string) {
  const provider: PaymentProvider & { signedOutcome: typeof signedOutcome } = {
    name: 'local',
    async createCheckout(_req: CheckoutRequest): Promise<Checkout> {
      const reference = `lcs_${randomBytes(18).toString('base64url')}`;
      return { reference, url: `/checkout/local/${reference}` };
    },
    /** Charges a saved `lpm_` method at once: `lpm_s…` succeeds, `lpm_d…` (card 0341) fails; the reference is derived from the idempotency key. */
    async chargeSaved(req: ChargeRequest): Promise<ChargeResult> {
      const m = /^lpm_([sd])\d{4}_/.exec(req.method);
      if (!m) throw new Error('not a saved method of the local provider');
      const reference = `lch_${derived(req.idempotencyKey)}`;
      return { reference, status: m[1] === 's' ? 'succeeded' : 'failed' };
    },
    /** Refunds at once (`succeeded`); the reference is derived from the idempotency key (`lre_…`). */
    async refund(req: RefundRequest): Promise<RefundResult> {
      return { reference: `lre_${derived(`refund:${req.idempotencyKey}`)}`, status: 'succeeded' };
    },
    async verifyCallback(rawBody: string, header: string | undefined, now?: Date): Promise<PaymentOutcome> {
      verifySignature(secret, rawBody, header, now);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(rawBody) as Record<string, unknown>;
      } catch {
        throw new CallbackRejected('The callback body is not JSON.');
      }
      const d = body.data as Record<string, unknown> | undefined;
      const status = body.type === 'payment.succeeded' ? 'succeeded' : body.type === 'payment.failed' ? 'failed' : undefined;
      const fields = [body.id, d?.tenant, d?.debt, d?.reference];
      if (!status || fields.some((f) => typeof f !== 'string')) throw new CallbackRejected('The callback body is malformed.');
      const saved = d!.saved_method as SavedMethod | undefined;
      const savedMethod =
        saved && typeof saved.reference === 'string' && typeof saved.label === 'string' ? { reference: saved.reference, label: saved.label } : undefined;
      return { eventId: body.id as string, status, tenantId: d!.tenant as string, debtId: d!.debt as string, reference: d!.reference as string, savedMethod };
    },
    signedOutcome,
  };
  /** A reference derived from an idempotency key (the same key, the same reference). */
  function derived(key: string): string {
    return createHmac('sha256', secret).update(key).digest('base64url').slice(0, 24);
  }
  /** The raw body and signature header of the callback reporting `outcome` (what the checkout page sends). */
  function signedOutcome(outcome: Omit<PaymentOutcome, 'eventId'>, now: Date = new Date()): { body: string; signature: string } {
    const body = JSON.stringify({
      id: `evt_local_${randomBytes(12).toString('base64url')}`,
      type: `payment.${outcome.status}`,
      data: { tenant: outcome.tenantId, debt: outcome.debtId, reference: outcome.reference, saved_method: outcome.savedMethod },
    });
    return { body, signature: signatureHeader(secret, body, Math.floor(now.getTime() / 1000)) };
  }
  return provider;
}

/** The local provider's type. */
export type LocalProvider = ReturnType<typeof localProvider>;

/** Whether `p` is the local provider (which serves its own checkout pages). */
export function isLocalProvider(p: PaymentProvider): p is LocalProvider {
  return p.name === 'local' && typeof (p as Partial<LocalProvider>).signedOutcome === 'function';
}
