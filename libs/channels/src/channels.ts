/**
 * The providers of a process, picked from the channel settings (settings.ts; docs/api.md section 13).
 */
import { join } from 'node:path';
import { createSmtpEmailProvider, type EmailMessage } from './email/smtp.js';
import { createLetterProvider, createLocalPrintProvider, type LetterProvider } from './letter/print.js';
import { addressKey, channelSettingsProblems, type ChannelSettings } from './settings.js';
import type { SignatureMethod } from './sms/signature.js';
import { createVonageSmsProvider, type SmsMessage } from './sms/vonage.js';
import type { ChannelProvider } from './types.js';

/** The provider of each delivery method; null where the method is not configured. */
export interface Channels {
  email: ChannelProvider<EmailMessage> | null;
  sms: ChannelProvider<SmsMessage> | null;
  letter: LetterProvider;
  /** Closes every provider. */
  close(): Promise<void>;
}

/**
 * Creates the providers the settings configure:
 * - email: SMTP when `SMTP_URL` is set, else none;
 * - SMS: the Vonage SMS API when `SMS_API_KEY` is set, else none;
 * - letters: always the local print provider (`LETTER_DIR`), until a print service is added.
 *
 * A delivery method without a provider is not configured: the engine records such a
 * communication as `failed` with that reason.
 * @param secretsKey the resolved `SECRETS_KEY` (for the reply-address key when `REPLY_ADDRESS_SECRET` is empty)
 * @throws RangeError when the settings are inconsistent (see `channelSettingsProblems`)
 */
export function createChannels(s: ChannelSettings, secretsKey: string): Channels {
  const problems = channelSettingsProblems(s);
  if (problems.length > 0) throw new RangeError(problems.join('; '));
  const email = s.SMTP_URL
    ? createSmtpEmailProvider({ url: s.SMTP_URL, from: s.MAIL_FROM, addresses: addressKey(s, secretsKey), maxConnections: s.SMTP_MAX_CONNECTIONS })
    : null;
  const sms = s.SMS_API_KEY
    ? createVonageSmsProvider({
        apiUrl: s.SMS_API_URL,
        reportsUrl: s.SMS_REPORTS_URL,
        apiKey: s.SMS_API_KEY,
        apiSecret: s.SMS_API_SECRET,
        signatureSecret: s.SMS_SIGNATURE_SECRET,
        signatureMethod: s.SMS_SIGNATURE_METHOD as SignatureMethod,
        from: s.SMS_FROM,
        callbackUrl: s.SMS_CALLBACK_URL || undefined,
      })
    : null;
  const letter = createLetterProvider({ printer: createLocalPrintProvider({ dir: s.LETTER_DIR || join(s.DATA_DIR, 'letters') }) });
  return {
    email,
    sms,
    letter,
    async close() {
      await Promise.all([email?.close(), sms?.close(), letter.close()]);
    },
  };
}
