/**
 * Settings of the channels (docs/api.md section 13), declared with the project's envalid helpers so
 * a service spreads `channelSpec` into its own spec and the configuration table lists them
 * (`createChannels` in channels.ts picks the providers from them). Also exported alone as
 * `@dms/channels/settings`, which loads no provider library, so a service's start stays quick.
 *
 * `npm start` runs local stand-ins and sets these variables when they are unset (tools/src/start.ts).
 */
import { hkdfSync } from 'node:crypto';
import { num, str } from '@dms/config';
import { SIGNATURE_METHODS, type SignatureMethod } from './sms/methods.js';
import type { VerifyOptions } from './sms/signature.js';
import type { AddressKey } from './email/addresses.js';

/** envalid spec of the channel settings (spread into a service's spec). */
export const channelSpec = {
  SMTP_URL: str({
    default: '',
    desc: 'SMTP server of outgoing email: smtp://host:port (STARTTLS when offered) or smtps:// (implicit TLS), credentials as user:password@; empty: no email channel (npm start runs a local SMTP server)',
  }),
  SMTP_MAX_CONNECTIONS: num({ default: 5, desc: 'SMTP connections kept open per process' }),
  MAIL_FROM: str({ default: 'Collections <collections@localhost>', desc: 'From of every email; its domain is also the right-hand side of Message-IDs' }),
  REPLY_DOMAIN: str({
    default: 'reply.localhost',
    desc: 'Domain of the per-debt reply addresses (reply+…@) and per-communication bounce addresses (bounce+…@); its mail must reach the inbound-mail endpoint',
  }),
  REPLY_ADDRESS_SECRET: str({
    default: '',
    desc: 'Keys of the tags in reply and bounce addresses, comma-separated: the first tags new addresses, all are accepted back (empty: derived from each SECRETS_KEY); a key removed invalidates the reply addresses of emails sent under it',
  }),
  SMS_API_KEY: str({ default: '', desc: 'Vonage API key of the SMS channel; empty: no SMS channel (npm start runs a local stand-in)' }),
  SMS_API_SECRET: str({ default: '', desc: 'Vonage API secret (the SMS API without a signature secret, and the Reports API)' }),
  SMS_SIGNATURE_SECRET: str({
    default: '',
    desc: 'Vonage signature secret: signs our requests and verifies signed delivery receipts and inbound SMS (required with SMS_API_KEY)',
  }),
  SMS_SIGNATURE_METHOD: str({ default: 'md5hash', choices: [...SIGNATURE_METHODS], desc: 'Signature algorithm chosen for the Vonage account' }),
  SMS_SIGNATURE_TOLERANCE_SECONDS: num({ default: 300, desc: 'Largest difference between a signed webhook timestamp and our clock, seconds' }),
  SMS_API_URL: str({ default: 'https://rest.nexmo.com', desc: 'Base URL of the Vonage SMS API' }),
  SMS_REPORTS_URL: str({ default: 'https://api.nexmo.com', desc: 'Base URL of the Vonage Reports API (reconciling sends whose outcome is unknown)' }),
  SMS_FROM: str({ default: 'DMS', desc: 'Sender id or virtual number of outgoing SMS (replies reach a virtual number)' }),
  SMS_CALLBACK_URL: str({ default: '', desc: 'Delivery-receipt webhook sent with each SMS (empty: the account setting)' }),
  LETTER_DIR: str({ default: '', desc: 'Directory where the local print provider keeps letters as PDF (empty: letters under DATA_DIR)' }),
};

/** The channel settings as validated (a subset of a service's config). */
export interface ChannelSettings {
  SMTP_URL: string;
  SMTP_MAX_CONNECTIONS: number;
  MAIL_FROM: string;
  REPLY_DOMAIN: string;
  REPLY_ADDRESS_SECRET: string;
  SMS_API_KEY: string;
  SMS_API_SECRET: string;
  SMS_SIGNATURE_SECRET: string;
  SMS_SIGNATURE_METHOD: string;
  SMS_SIGNATURE_TOLERANCE_SECONDS: number;
  SMS_API_URL: string;
  SMS_REPORTS_URL: string;
  SMS_FROM: string;
  SMS_CALLBACK_URL: string;
  LETTER_DIR: string;
  DATA_DIR: string;
}

/** Inconsistent channel settings, one sentence each naming the setting (empty when fine): a service stops on them at start. */
export function channelSettingsProblems(s: ChannelSettings): string[] {
  const problems: string[] = [];
  if (s.SMTP_URL && !/^smtps?:\/\//.test(s.SMTP_URL)) problems.push('SMTP_URL: must start with smtp:// or smtps://');
  if (!/@[^@\s>]+>?\s*$/.test(s.MAIL_FROM)) problems.push('MAIL_FROM: must be an address with a domain, e.g. Collections <collections@example.com>');
  if (s.SMS_API_KEY && !s.SMS_API_SECRET) problems.push('SMS_API_SECRET: required with SMS_API_KEY');
  if (s.SMS_API_KEY && !s.SMS_SIGNATURE_SECRET)
    problems.push('SMS_SIGNATURE_SECRET: required with SMS_API_KEY (delivery receipts and inbound SMS must be verified)');
  if (!(s.SMS_SIGNATURE_TOLERANCE_SECONDS > 0)) problems.push('SMS_SIGNATURE_TOLERANCE_SECONDS: must be greater than 0');
  return problems;
}

/**
 * The keys of reply and bounce address tags: `REPLY_ADDRESS_SECRET` (comma-separated, the first
 * tags new addresses), else HKDF-SHA256 (RFC 5869) of each `SECRETS_KEY` in its order; the keys
 * after the first are still accepted when reading an address back (a rotation).
 */
export function addressKey(s: Pick<ChannelSettings, 'REPLY_DOMAIN' | 'REPLY_ADDRESS_SECRET'>, secretsKey: string): AddressKey {
  const list = (v: string) =>
    v
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
  const derive = (k: string) => Buffer.from(hkdfSync('sha256', Buffer.from(k, 'base64'), Buffer.alloc(0), 'dms reply addresses', 32)).toString('base64');
  const [key = '', ...previous] = s.REPLY_ADDRESS_SECRET ? list(s.REPLY_ADDRESS_SECRET) : list(secretsKey).map(derive);
  return { domain: s.REPLY_DOMAIN, key, previous };
}

/** What verifying Vonage webhooks needs (the API's callback endpoints), from the settings. */
export function smsVerifyOptions(s: ChannelSettings): Omit<VerifyOptions, 'replayGuard'> {
  return {
    secret: s.SMS_SIGNATURE_SECRET,
    method: s.SMS_SIGNATURE_METHOD as SignatureMethod,
    apiKey: s.SMS_API_KEY,
    toleranceSeconds: s.SMS_SIGNATURE_TOLERANCE_SECONDS,
  };
}
