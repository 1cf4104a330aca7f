/**
 * The one interface every delivery provider implements (docs/api.md section 13), whatever it talks
 * to: SMTP for email, an HTTP SMS API, a print service for letters. The collection engine picks the
 * provider of a communication's `delivery_method`, hands it one message carrying the
 * communication's stable identity, and records what comes back as the communication's `provider`
 * and `provider_reference` (docs/api.md section 13).
 *
 * "Once, not twice": a send either returns (the provider accepted the message), or throws a
 * `ChannelError` whose `outcome` says whether the message certainly did not leave (`not_sent`:
 * safe to try again later), was refused for good (`rejected`), or may have left (`unknown`: never
 * send again blindly; ask `reconcile`).
 */

/** Delivery methods (docs/api.md section 13). */
export type DeliveryMethod = 'email' | 'sms' | 'letter';

/** What a provider answered for an accepted message. */
export interface SendResult {
  /** Provider name recorded on the communication, e.g. `smtp`, `vonage`, `local-print`. */
  provider: string;
  /** The provider's id of the message: callbacks, receipts and bounces name it (e.g. the email's Message-ID). */
  providerReference: string;
  /** Provider details worth keeping in the communication's metadata (no personal data). */
  details: Record<string, string | number | boolean | string[]>;
}

/** What a provider knows of a send whose outcome the engine lost (a crash between hand-over and recording). */
export type Reconciliation =
  /** The provider has the message: record it as sent with this reference. */
  | { outcome: 'sent'; providerReference: string; details: Record<string, string> }
  /** The provider has no such message: it never arrived, so sending it now is not a second send. */
  | { outcome: 'not_found' }
  /** The provider cannot tell yet (its records lag, or it was unreachable): ask again after `retryAfterSeconds`. */
  | { outcome: 'ask_later'; retryAfterSeconds: number; reason: string }
  /** The provider cannot tell (SMTP cannot be asked): mark the communication failed with `reason`, do not resend. */
  | { outcome: 'unknown'; reason: string };

/** The stable identity of one send: what a provider is told and what reconciliation asks about. */
export interface SendIdentity {
  /** The communication's id (`com_...`): the email's Message-ID, the SMS client reference, the letter's file name. */
  communicationId: string;
  /** When the engine handed (or was about to hand) the message over: reconciliation searches around it. */
  attemptedAt: Date;
}

/**
 * A provider of one delivery method. `M` is the message it takes (an email, an SMS, a letter),
 * always including the communication id.
 */
export interface ChannelProvider<M extends { communicationId: string }> {
  /** Provider name recorded on communications (`communication.provider`). */
  readonly name: string;
  readonly deliveryMethod: DeliveryMethod;
  /**
   * Hands one message to the provider.
   * @throws ChannelError with the outcome of a failed send
   */
  send(message: M): Promise<SendResult>;
  /** Asks the provider what became of a send whose outcome is unknown (see `Reconciliation`). */
  reconcile(identity: SendIdentity): Promise<Reconciliation>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** Outcome of a failed send. */
export type FailureOutcome = 'not_sent' | 'rejected' | 'unknown';

/** A send that failed, with what the engine may do next. */
export class ChannelError extends Error {
  /** `not_sent`: nothing left, retry later; `rejected`: the provider refused it for good; `unknown`: it may have left. */
  readonly outcome: FailureOutcome;
  /** A short stable code, e.g. `smtp_550`, `connection_refused`, `vonage_status_3`, `timeout`. */
  readonly code: string;
  constructor(outcome: FailureOutcome, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChannelError';
    this.outcome = outcome;
    this.code = code;
  }
}

/** Final state a receipt or bounce reports for an outbound communication (docs/api.md section 13), or `pending` for interim news. */
export type ReceiptStatus = 'delivered' | 'failed' | 'bounced' | 'pending';

/** A provider's delivery news about one outbound message, parsed and authenticated. */
export interface DeliveryReceipt {
  /** The provider's id of the message (the `provider_reference` the send returned, or one part of it). */
  providerReference: string;
  /** The communication id the message carried (SMS `client-ref`, email Message-ID), when the receipt names it. */
  communicationId: string | null;
  /** `delivered`; `failed` (this message did not arrive); `bounced` (the address or number is unusable: mark the contact detail `undeliverable`); `pending` (interim, changes nothing). */
  status: ReceiptStatus;
  /** Why, for `failed` and `bounced` (provider code and text). */
  reason: string | null;
  /** When the provider reports the event happened, if it says. */
  occurredAt: Date | null;
}
