/** Signature algorithms a Vonage account can choose (setting `SMS_SIGNATURE_METHOD`; Vonage API documentation, "Signing Messages"). */
export const SIGNATURE_METHODS = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];
