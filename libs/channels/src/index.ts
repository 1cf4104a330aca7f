/**
 * @dms/channels: how communications reach customers and how their answers come back (docs/api.md
 * section 13). One `ChannelProvider` interface per delivery method, chosen by the
 * settings: email over SMTP (nodemailer), SMS through the Vonage SMS API, letters as PDF (pdfkit)
 * handed to a print provider; parsers of replies, bounces, delivery receipts and inbound SMS; and
 * reconciliation of sends whose outcome was lost. Local stand-ins live in `@dms/channels/standin`.
 */
export { ChannelError } from './types.js';
export type { ChannelProvider, DeliveryMethod, DeliveryReceipt, FailureOutcome, ReceiptStatus, Reconciliation, SendIdentity, SendResult } from './types.js';
export { bounceAddress, communicationIdFromMessageId, messageIdFor, parseTaggedAddress, replyAddress, taggedAddress } from './email/addresses.js';
export type { AddressKey, AddressPurpose } from './email/addresses.js';
export { classifySmtpError, createSmtpEmailProvider } from './email/smtp.js';
export type { EmailMessage, SmtpProviderOptions } from './email/smtp.js';
export { parseBounce, parseDeliveryStatus, parseInboundEmail } from './email/inbound.js';
export type { EmailBounce, InboundEmail, InboundOptions } from './email/inbound.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_METHODS,
  SignatureError,
  memoryReplayGuard,
  signParams,
  verifySignedParams,
  vonageSignature,
} from './sms/signature.js';
export type { ReplayGuard, SignatureFailure, SignatureMethod, VerifyOptions } from './sms/signature.js';
export { classifyHttpError, createVonageSmsProvider, isGsm7 } from './sms/vonage.js';
export type { SmsMessage, VonageOptions } from './sms/vonage.js';
export { UNUSABLE_NUMBER_CODES, parseVonageInbound, parseVonageReceipt, receiptStatus } from './sms/webhooks.js';
export type { InboundSms } from './sms/webhooks.js';
export { addressLines, renderLetterPdf, toWinAnsi } from './letter/pdf.js';
export type { LetterContent, PostalAddress } from './letter/pdf.js';
export { createLetterProvider, createLocalPrintProvider } from './letter/print.js';
export type { LetterMessage, LetterProvider, PrintProvider } from './letter/print.js';
export { addressKey, channelSettingsProblems, channelSpec, smsVerifyOptions } from './settings.js';
export type { ChannelSettings } from './settings.js';
export { createChannels } from './channels.js';
export type { Channels } from './channels.js';
