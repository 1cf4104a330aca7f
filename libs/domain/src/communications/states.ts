/**
 * The statuses of a communication (docs/api.md section 13) as one machine (kernel/machine.ts):
 * outbound `queued` → `sent` (its provider accepted it) → `delivered` | `failed` | `bounced`, or
 * `queued` → `failed` (it could not be made or handed over); inbound communications are
 * `received` and stay so. Written by store.ts alone.
 */
import { defineMachine } from '../kernel/machine.js';

/** Every status of a communication. */
export const COMMUNICATION_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'bounced', 'received'] as const;
export type CommunicationStatus = (typeof COMMUNICATION_STATUSES)[number];

/** Directions of a communication. */
export const DIRECTIONS = ['outbound', 'inbound'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The machine of outbound communications. */
export const COMMUNICATION_MACHINE = defineMachine({
  noun: 'communication',
  statuses: COMMUNICATION_STATUSES,
  table: {
    send: { from: ['queued'], to: 'sent' },
    deliver: { from: ['sent'], to: 'delivered' },
    fail: { from: ['queued', 'sent'], to: 'failed' },
    bounce: { from: ['sent', 'delivered'], to: 'bounced' },
  },
});

/** A move of the machine. */
export type CommunicationMove = (typeof COMMUNICATION_MACHINE.moves)[number];

/** The event each status records. */
export const STATUS_EVENTS = {
  queued: 'communication.created',
  sent: 'communication.sent',
  delivered: 'communication.delivered',
  failed: 'communication.failed',
  bounced: 'communication.failed',
  received: 'communication.received',
} as const satisfies Record<CommunicationStatus, string>;
