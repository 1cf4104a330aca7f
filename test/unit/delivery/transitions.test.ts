/**
 * The delivery state machine of @dms/webhook-delivery (docs/api.md section 7): every move from
 * every state, allowed or refused, against the table written out here once more by hand, so a
 * change to the machine is a deliberate change to this test too.
 */
import { describe, expect, test } from '@jest/globals';
import {
  DELIVERY_MOVES,
  DELIVERY_STATES,
  STORED_STATUS,
  requireTransition,
  stateOf,
  transition,
  type DeliveryStateColumns,
  type DeliveryMove,
  type DeliveryState,
} from '@dms/webhook-delivery';

/** Allowed moves: `from -> move -> to`. Everything not listed is refused. */
const ALLOWED: ReadonlyArray<[DeliveryState, DeliveryMove, DeliveryState]> = [
  ['pending', 'claim', 'delivering'],
  ['retry_scheduled', 'claim', 'delivering'],
  ['delivering', 'reclaim', 'delivering'],
  ['delivering', 'succeed', 'succeeded'],
  ['delivering', 'retry', 'retry_scheduled'],
  ['delivering', 'exhaust', 'exhausted'],
  ['delivering', 'release', 'pending'],
  ['pending', 'cancel', 'canceled'],
  ['retry_scheduled', 'cancel', 'canceled'],
  ['delivering', 'cancel', 'canceled'],
  ['retry_scheduled', 'requeue', 'pending'],
  ['exhausted', 'requeue', 'pending'],
  ['canceled', 'requeue', 'pending'],
];

const allowedTo = (state: DeliveryState, move: DeliveryMove) => ALLOWED.find(([s, m]) => s === state && m === move)?.[2];
const everyPair = DELIVERY_STATES.flatMap((state) => DELIVERY_MOVES.map((move) => [state, move] as const));

describe('transition', () => {
  test('covers six states and eight moves', () => {
    expect([...DELIVERY_STATES].sort()).toEqual(['canceled', 'delivering', 'exhausted', 'pending', 'retry_scheduled', 'succeeded']);
    expect([...DELIVERY_MOVES].sort()).toEqual(['cancel', 'claim', 'exhaust', 'reclaim', 'release', 'requeue', 'retry', 'succeed']);
  });

  test.each(ALLOWED)('%s --%s--> %s', (from, move, to) => {
    expect(transition(from, move)).toEqual({ ok: true, to });
    expect(requireTransition(from, move)).toBe(to);
  });

  const refused = everyPair.filter(([state, move]) => allowedTo(state, move) === undefined);

  test('refuses every move not in the table (%i pairs)', () => {
    expect(refused).toHaveLength(DELIVERY_STATES.length * DELIVERY_MOVES.length - ALLOWED.length);
  });

  test.each(refused)('%s refuses %s', (state, move) => {
    const result = transition(state, move);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(`'${state}'`);
    expect(result.message).toContain(`'${move}'`);
    expect(() => requireTransition(state, move)).toThrow(result.message);
  });

  test('succeeded is final: no move leaves it', () => {
    expect(DELIVERY_MOVES.filter((move) => transition('succeeded', move).ok)).toEqual([]);
  });

  test.each(['exhausted', 'canceled'] as const)("%s is final for the dispatcher: only the operator's requeue leaves it", (state) => {
    expect(DELIVERY_MOVES.filter((move) => transition(state, move).ok)).toEqual(['requeue']);
  });

  test('a delivery being sent or never attempted cannot be requeued', () => {
    expect(transition('delivering', 'requeue').ok).toBe(false);
    expect(transition('pending', 'requeue').ok).toBe(false);
  });

  test('every attempt-ending move starts from the lease', () => {
    for (const move of ['succeed', 'retry', 'exhaust', 'release'] as const) {
      expect(DELIVERY_STATES.filter((s) => transition(s, move).ok)).toEqual(['delivering']);
    }
  });
});

describe('stateOf', () => {
  const row = (over: Partial<DeliveryStateColumns>): DeliveryStateColumns => ({
    status: 'pending',
    lease_token: null,
    attempt_count: 0,
    schedule_base: 0,
    ...over,
  });

  test.each<[Partial<DeliveryStateColumns>, DeliveryState]>([
    [{}, 'pending'],
    [{ lease_token: 'l' }, 'delivering'],
    [{ attempt_count: 1 }, 'retry_scheduled'],
    // Requeued after three attempts: a fresh schedule, nothing attempted in it yet.
    [{ attempt_count: 3, schedule_base: 3 }, 'pending'],
    [{ attempt_count: 4, schedule_base: 3 }, 'retry_scheduled'],
    [{ attempt_count: 4, schedule_base: 3, lease_token: 'l' }, 'delivering'],
    [{ status: 'succeeded', attempt_count: 1 }, 'succeeded'],
    [{ status: 'failed', attempt_count: 8 }, 'exhausted'],
    [{ status: 'canceled' }, 'canceled'],
  ])('%j is %s', (over, state) => {
    expect(stateOf(row(over))).toBe(state);
  });

  test('every state read back is stored with its status', () => {
    for (const status of ['pending', 'succeeded', 'failed', 'canceled'] as const) {
      expect(STORED_STATUS[stateOf(row({ status, attempt_count: 1 }))]).toBe(status);
    }
  });
});

describe('stored status', () => {
  const storedAs = (status: string) => DELIVERY_STATES.filter((s) => STORED_STATUS[s] === status);

  test('every state not final is stored as pending', () => {
    expect(storedAs('pending')).toEqual(['pending', 'delivering', 'retry_scheduled']);
  });

  test('each final state has its own status; exhausted is stored as failed', () => {
    expect(storedAs('succeeded')).toEqual(['succeeded']);
    expect(storedAs('failed')).toEqual(['exhausted']);
    expect(storedAs('canceled')).toEqual(['canceled']);
  });
});
