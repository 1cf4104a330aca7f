/**
 * The channel settings of @dms/channels (docs/api.md section 13): inconsistent combinations are
 * named, and the reply-address key is derived from the secrets key when not set.
 */
import { expect, test } from '@jest/globals';
import { addressKey, channelSettingsProblems, type ChannelSettings } from '@dms/channels';

const base: ChannelSettings = {
  SMTP_URL: '',
  SMTP_MAX_CONNECTIONS: 5,
  MAIL_FROM: 'Collections <c@example.com>',
  REPLY_DOMAIN: 'reply.example.com',
  REPLY_ADDRESS_SECRET: '',
  SMS_API_KEY: '',
  SMS_API_SECRET: '',
  SMS_SIGNATURE_SECRET: '',
  SMS_SIGNATURE_METHOD: 'md5hash',
  SMS_SIGNATURE_TOLERANCE_SECONDS: 300,
  SMS_API_URL: 'https://rest.nexmo.com',
  SMS_REPORTS_URL: 'https://api.nexmo.com',
  SMS_FROM: 'DMS',
  SMS_CALLBACK_URL: '',
  LETTER_DIR: '',
  DATA_DIR: '/tmp/x',
};

test('nothing configured is consistent; each inconsistency is named', () => {
  expect(channelSettingsProblems(base)).toEqual([]);
  expect(
    channelSettingsProblems({ ...base, SMTP_URL: 'http://mail', MAIL_FROM: 'nobody', SMS_API_KEY: 'abcd1234', SMS_SIGNATURE_TOLERANCE_SECONDS: 0 }),
  ).toEqual([
    'SMTP_URL: must start with smtp:// or smtps://',
    'MAIL_FROM: must be an address with a domain, e.g. Collections <collections@example.com>',
    'SMS_API_SECRET: required with SMS_API_KEY',
    'SMS_SIGNATURE_SECRET: required with SMS_API_KEY (delivery receipts and inbound SMS must be verified)',
    'SMS_SIGNATURE_TOLERANCE_SECONDS: must be greater than 0',
  ]);
});

test('the reply-address keys: the setting when set, else derived from each secrets key (stable, not the key itself), the first tagging', () => {
  const secrets = `${Buffer.alloc(32, 1).toString('base64')},${Buffer.alloc(32, 2).toString('base64')}`;
  expect(addressKey({ ...base, REPLY_ADDRESS_SECRET: 'set' }, secrets)).toEqual({ domain: 'reply.example.com', key: 'set', previous: [] });
  expect(addressKey({ ...base, REPLY_ADDRESS_SECRET: 'new, old' }, secrets)).toEqual({ domain: 'reply.example.com', key: 'new', previous: ['old'] });
  const derived = addressKey(base, secrets).key;
  expect(derived).toBe(addressKey(base, secrets.split(',')[0]!).key);
  // After a rotation (new key first) the old key's derivation is still accepted, no longer used to tag.
  expect(addressKey(base, `${Buffer.alloc(32, 3).toString('base64')},${secrets}`).previous).toEqual([derived, addressKey(base, secrets.split(',')[1]!).key]);
  expect(derived).not.toBe(secrets.split(',')[0]);
  expect(derived).not.toBe(addressKey(base, Buffer.alloc(32, 3).toString('base64')).key);
});
