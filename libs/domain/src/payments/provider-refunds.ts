/**
 * Refunds of provider payments (docs/api.md section 8 "Payments" and section 18 "Payments",
 * refunds): a payment the platform itself took through a provider (`provider_managed`, set only by
 * the portal's checkout and the worker's charges, never by an API body) whose `payment_provider`
 * names a provider the service has (the caller's `RefundThrough` answers for it) and that has a
 * `transaction_ref` is refunded at that provider
 * first, inside the refund's transaction and under its locks (the debt's, then the payment's), so
 * two refunds of one payment never reach the provider at once and each sees what the other left.
 * Only a refund the provider accepted (`succeeded` or `pending`) is recorded: in `payment_refunds`
 * (migration 109) beside the ledger change and its events, all in that transaction. A refusal or
 * an unreachable provider throws, and the transaction (nothing written yet) rolls back.
 *
 * The provider's idempotency key is stable for one request: from the request's own
 * `Idempotency-Key` when it has one (its retry sends the same key), else from what the payment had
 * refunded before and the amount (a retry after a lost answer, while nothing else was recorded,
 * sends the same key), so the provider refunds once what the ledger records once.
 */
import { createHash } from 'node:crypto';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { newId } from '@dms/ids';
import type { DebtRow } from '../debts/schemas.js';
import type { PaymentRow } from './schemas.js';

/** Id prefix of a provider refund (`rfd_…`, a row of `payment_refunds`). */
export const PAYMENT_REFUND_ID_PREFIX = 'rfd';

/** The table of provider refunds. */
export const PAYMENT_REFUNDS_TABLE = 'payment_refunds';

/** A refund asked of a provider: the payment's `transaction_ref`, minor units, and the key making it one refund. */
export interface ProviderRefundRequest {
  reference: string;
  amount: number;
  idempotencyKey: string;
}

/** What the provider did: its refund's reference and status (`failed` is a refusal). */
export interface ProviderRefundResult {
  reference: string;
  status: 'succeeded' | 'pending' | 'failed';
}

/**
 * The refund function of the provider named `provider` (a payment's `payment_provider`), or
 * undefined when it is not one of ours (a payment the tenant recorded: refunded in the ledger
 * only). The function throws an error with `kind: 'refused'` when the provider said no; anything
 * else it throws counts as the provider being unavailable.
 */
export type RefundThrough = (provider: string) => ((req: ProviderRefundRequest) => Promise<ProviderRefundResult>) | undefined;

/** How a refund reaches a provider: the lookup, and the request's `Idempotency-Key` scoped to its client (when it has one). */
export interface ProviderRefundOptions {
  through: RefundThrough;
  requestKey?: string;
}

/** A row of `payment_refunds`; `amount` in minor units. */
export interface PaymentRefundRow {
  id: string;
  tenant_id: string;
  payment_id: string;
  debt_id: string;
  amount: number;
  currency: string;
  provider: string;
  provider_reference: string;
  status: 'succeeded' | 'pending' | 'failed';
  created_at: Date;
}

/**
 * The provider's idempotency key of refunding `amount` (minor units) of the locked `payment`:
 * `refund_<payment id>_k<hash of the request's key>` or `refund_<payment id>_<refunded before>_<amount>`.
 */
export function providerRefundKey(payment: Pick<PaymentRow, 'id' | 'amount_refunded'>, amount: number, requestKey?: string): string {
  if (requestKey !== undefined) return `refund_${payment.id}_k${createHash('sha256').update(requestKey).digest('base64url').slice(0, 32)}`;
  return `refund_${payment.id}_${payment.amount_refunded}_${amount}`;
}

/** Whether `err` is a provider's refusal (the payments library's `ProviderError` of kind `refused`). */
function isRefusal(err: unknown): err is Error & { code?: string } {
  return err instanceof Error && (err as { kind?: unknown }).kind === 'refused';
}

/**
 * Refunds `amount` (minor units) of the locked `payment` of the locked `debt` at its provider when
 * the platform took it there (`provider_managed`), the provider is one of ours and the payment has
 * a `transaction_ref`, and stores the accepted refund in `payment_refunds`
 * in `trx`; does nothing for any other payment (a refund in the ledger only).
 * @returns the stored row, or undefined when the payment is not a provider's
 * @throws ApiError 402 `payment_provider_refused` (the provider said no or reported `failed`),
 *   502 `payment_provider_unavailable` (not reached, a server error, no answer): nothing refunded
 */
export async function refundAtProvider(
  trx: Knex.Transaction,
  debt: DebtRow,
  payment: PaymentRow,
  amount: number,
  options: ProviderRefundOptions,
): Promise<PaymentRefundRow | undefined> {
  // A tenant's own payment names its processor in free text (docs suggest `stripe`): never ours to refund.
  const provider = payment.provider_managed ? payment.payment_provider : null;
  const refund = provider ? options.through(provider) : undefined;
  if (!provider || !refund || !payment.transaction_ref) return undefined;
  let result: ProviderRefundResult;
  try {
    result = await refund({ reference: payment.transaction_ref, amount, idempotencyKey: providerRefundKey(payment, amount, options.requestKey) });
  } catch (err) {
    if (isRefusal(err)) {
      const why = err.code ? ` (${err.code})` : '';
      throw new ApiError('payment_provider_refused', `The payment provider ${provider} refused the refund of payment ${payment.id}${why}.`, { cause: err });
    }
    throw new ApiError(
      'payment_provider_unavailable',
      `The payment provider ${provider} could not be reached to refund payment ${payment.id}; nothing was refunded. Retry later.`,
      { cause: err },
    );
  }
  if (result.status === 'failed') {
    throw new ApiError('payment_provider_refused', `The payment provider ${provider} refused the refund of payment ${payment.id} (failed).`);
  }
  const [row] = (await trx(PAYMENT_REFUNDS_TABLE)
    .insert({
      id: newId(PAYMENT_REFUND_ID_PREFIX),
      tenant_id: debt.tenant_id,
      payment_id: payment.id,
      debt_id: debt.id,
      amount,
      currency: payment.currency,
      provider,
      provider_reference: result.reference,
      status: result.status,
    })
    .returning('*')) as PaymentRefundRow[];
  return row;
}
