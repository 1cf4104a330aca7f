/**
 * Encryption at rest of personal data (docs/api.md section 20, "Where personal data is stored"):
 * the one process-wide `SecretBox` (keyed by `SECRETS_KEY`, AES-256-GCM) that seals and opens
 * personal fields stored encrypted, such as a customer's date of birth. Each process that reads or
 * writes customers sets it once at start with `usePersonalDataBox`; using it before then throws.
 */
import { SecretBox } from '@dms/secrets';

let current: SecretBox | undefined;

/** Sets the box personal data is sealed and opened with (each service's start, tools, tests). */
export function usePersonalDataBox(box: SecretBox): void {
  current = box;
}

/** The box set by `usePersonalDataBox`. @throws Error when none was set (a start-up mistake, not bad input). */
export function personalDataBox(): SecretBox {
  if (!current) throw new Error('personal data box not set: call usePersonalDataBox(new SecretBox(SECRETS_KEY)) at start');
  return current;
}

/** Seals a personal value (null stays null); returns the `v1.…` ciphertext. */
export function sealPersonal(value: string | null): string | null {
  return value === null ? null : personalDataBox().seal(value);
}

/**
 * A personal value stored encrypted, or (rows written before it was, not yet moved by
 * `sealLegacyBirthDates`) in clear: the opened ciphertext when there is one, else the clear value.
 * @throws SecretDecryptionError when the ciphertext cannot be opened with `SECRETS_KEY`
 */
export function openPersonal(sealed: string | null | undefined, clear: string | null | undefined = null): string | null {
  return sealed ? personalDataBox().open(sealed) : (clear ?? null);
}

/** `usePersonalDataBox` with a box keyed by `keySpec` (the `SECRETS_KEY` value). @throws Error when malformed */
export function usePersonalDataKey(keySpec: string): void {
  usePersonalDataBox(new SecretBox(keySpec));
}
