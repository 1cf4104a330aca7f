/**
 * `@dms/channels/standin`: the local stand-ins (docs/api.md section 13) that `npm start` runs when
 * no channel is configured and the tests talk to over real sockets: an SMTP server that keeps and
 * shows every message, and an SMS server with the Vonage SMS API's shape. Not for production.
 */
import { randomBytes } from 'node:crypto';
import { startLocalMailServer, type LocalMailServer } from './mail-server.js';
import { startLocalSmsServer, type LocalSmsServer } from './sms-server.js';
import type { SignatureMethod } from '../sms/signature.js';

export { startLocalMailServer, type LocalMailServer, type LocalMailServerOptions } from './mail-server.js';
export { startLocalSmsServer, type LocalSmsServer, type LocalSmsServerOptions, type StoredSms } from './sms-server.js';
export type { StoredMail } from './mail-store.js';
export { composeDsn, type DsnInput } from './dsn.js';

export interface LocalChannelsOptions {
  /** Messages are kept under `<dataDir>/mail` and `<dataDir>/sms`. */
  dataDir: string;
  /** Domain of reply and bounce addresses (`REPLY_DOMAIN`). */
  replyDomain: string;
  /** Ports (default 0: any free port). */
  ports?: { smtp?: number; mailWeb?: number; sms?: number };
  /** Where the mail server forwards replies and bounces, with its bearer secret. */
  mailInbound?: { url: string; secret: string };
  /** Where the SMS server sends delivery receipts (when a message names no callback) and inbound messages. */
  smsReceiptUrl?: string;
  smsInboundUrl?: string;
}

/** The running stand-ins and the settings that point the services at them. */
export interface LocalChannels {
  mail: LocalMailServer;
  sms: LocalSmsServer;
  /** `SMTP_URL`, `SMS_API_URL`, `SMS_REPORTS_URL`, `SMS_API_KEY`, `SMS_API_SECRET`, `SMS_SIGNATURE_SECRET`, `SMS_SIGNATURE_METHOD`. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts both stand-ins with fresh credentials (an 8-character API key, random secrets, SHA-256 HMAC signatures). */
export async function startLocalChannels(options: LocalChannelsOptions): Promise<LocalChannels> {
  const apiKey = randomBytes(4).toString('hex');
  const apiSecret = randomBytes(16).toString('hex');
  const signatureSecret = randomBytes(24).toString('base64url');
  const signatureMethod: SignatureMethod = 'sha256';
  const mail = await startLocalMailServer({
    dataDir: options.dataDir,
    smtpPort: options.ports?.smtp,
    httpPort: options.ports?.mailWeb,
    replyDomain: options.replyDomain,
    inbound: options.mailInbound,
  });
  let sms: LocalSmsServer;
  try {
    sms = await startLocalSmsServer({
      dataDir: options.dataDir,
      port: options.ports?.sms,
      apiKey,
      apiSecret,
      signatureSecret,
      signatureMethod,
      receiptUrl: options.smsReceiptUrl,
      inboundUrl: options.smsInboundUrl,
    });
  } catch (err) {
    await mail.stop();
    throw err;
  }
  return {
    mail,
    sms,
    env: {
      SMTP_URL: mail.smtpUrl,
      SMS_API_URL: sms.url,
      SMS_REPORTS_URL: sms.url,
      SMS_API_KEY: apiKey,
      SMS_API_SECRET: apiSecret,
      SMS_SIGNATURE_SECRET: signatureSecret,
      SMS_SIGNATURE_METHOD: signatureMethod,
    },
    async stop() {
      await Promise.all([mail.stop(), sms.stop()]);
    },
  };
}
