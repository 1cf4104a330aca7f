/**
 * Encryption at rest for secrets the platform must read back (OAuth client secrets, webhook
 * signing secrets, receivers' OAuth client secrets, signing keys): AES-256-GCM with a random
 * 96-bit nonce per value (NIST SP 800-38D).
 *
 * `SECRETS_KEY` holds one or more base64 32-byte keys separated by commas. The first encrypts; all
 * decrypt, so the key can be rotated by prepending a new one and re-encrypting at leisure.
 * Ciphertexts look like `v1.<key id>.<nonce>.<tag>.<data>` (base64url parts); the key id is the
 * first 8 hex characters of the key's SHA-256, so a ciphertext names the key that opens it
 * without revealing it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/** Raised when a ciphertext is malformed, was made with an unknown key, or was tampered with. */
export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptionError';
  }
}

interface Key {
  id: string;
  bytes: Buffer;
}

function parseKeys(spec: string): Key[] {
  const keys = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((b64) => {
      const bytes = Buffer.from(b64, 'base64');
      if (bytes.length !== 32) throw new Error('SECRETS_KEY must hold base64-encoded 32-byte keys');
      return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes };
    });
  if (keys.length === 0) throw new Error('SECRETS_KEY is empty');
  return keys;
}

/** Seals and opens secrets with the keys of `SECRETS_KEY`. */
export class SecretBox {
  readonly #keys: Key[];

  /** @param keySpec comma-separated base64 32-byte keys; the first one encrypts. Throws if malformed. */
  constructor(keySpec: string) {
    this.#keys = parseKeys(keySpec);
  }

  /** Encrypts a UTF-8 string; returns the `v1.…` ciphertext. */
  seal(plaintext: string): string {
    const key = this.#keys[0]!;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, nonce);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, key.id, nonce.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
  }

  /** Decrypts a ciphertext made by `seal`. Throws `SecretDecryptionError` on any failure. */
  open(ciphertext: string): string {
    const parts = ciphertext.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretDecryptionError('malformed ciphertext');
    const [, keyId, nonce, tag, data] = parts as [string, string, string, string, string];
    const key = this.#keys.find((k) => k.id === keyId);
    if (!key) throw new SecretDecryptionError(`no key ${keyId} in SECRETS_KEY`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('ciphertext failed authentication');
    }
  }

  /** The id of the current (first) key: what `seal` writes after `v1.` (8 hex digits). */
  get keyId(): string {
    return this.#keys[0]!.id;
  }

  /** The ids of every key, the current one first. */
  get keyIds(): string[] {
    return this.#keys.map((k) => k.id);
  }

  /** True when the ciphertext was sealed with a key other than the current (first) one. */
  needsReseal(ciphertext: string): boolean {
    return ciphertext.split('.')[1] !== this.#keys[0]!.id;
  }
}

/**
 * Creates a random secret token: `prefix` followed by `bytes` random bytes in base64url.
 * @param bytes entropy in bytes (default 32 = 256 bits)
 */
export function randomSecret(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
