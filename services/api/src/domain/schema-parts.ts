/**
 * JSON Schema fragments shared by resource schemas (CONTRACT section 3): metadata, currency,
 * money, identifiers, timestamps.
 */
import { idPattern, type IdPrefix } from '@dms/ids';
import type { JsonSchema } from '../http/validation.js';

/** ISO 4217 currencies the platform accepts. */
export const CURRENCIES = ['GBP', 'EUR', 'USD'] as const;

/** `metadata`: at most 50 string keys (≤ 40 chars) with string values (≤ 500 chars). */
export const metadataSchema: JsonSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: 'string', maxLength: 500 },
  description: 'Your own key-value data: at most 50 keys of up to 40 characters, string values up to 500 characters.',
};

/**
 * `metadata` of an update (`PATCH`): the given keys are merged into the stored metadata, a key set
 * to the empty string is removed, keys not mentioned are kept (as Stripe does).
 */
export const metadataPatchSchema: JsonSchema = {
  ...metadataSchema,
  description:
    'Keys to merge into the stored metadata: each given key is set, a key set to "" is removed, keys not mentioned are kept. At most 50 keys after merging.',
};

/** A currency of {@link CURRENCIES}. */
export const currencySchema: JsonSchema = { type: 'string', enum: [...CURRENCIES], description: 'ISO 4217 currency code.' };

/** An amount in minor units (pence, cents); bounded so sums stay exact in JSON numbers. */
export const minorUnitsSchema: JsonSchema = { type: 'integer', minimum: 0, maximum: 100_000_000_000_000, description: 'Amount in minor units (e.g. pence).' };

/** An identifier of `prefix`. */
export function idSchema(prefix: IdPrefix, description?: string): JsonSchema {
  return { type: 'string', pattern: idPattern(prefix), ...(description ? { description } : {}) };
}

/** A timestamp given in a request (RFC 3339 section 5.6). */
export const timestampSchema: JsonSchema = { type: 'string', format: 'date-time', description: 'RFC 3339 timestamp, UTC.' };

/** `created_at` and `updated_at` of a stored resource in responses (RFC 3339, UTC); spread into `properties`. */
export const timestampProperties: Record<'created_at' | 'updated_at', JsonSchema> = {
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
};

/** Short free text (names, references). */
export function textSchema(maxLength = 200, description?: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength, ...(description ? { description } : {}) };
}

/** `{"reason"}` body of lifecycle actions. */
export const reasonBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: textSchema(500, 'Why the action was taken; stored on the status.') },
};

/** Converts a database timestamp to RFC 3339 UTC. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
