/**
 * The debt lifecycle (docs/api.md section 6) as a pure function: every (status, move) pair is
 * either the documented target or a refusal, terminal statuses accept no move, and refusals
 * become 409 `invalid_state_transition`. The expected table is written out here by hand from the
 * reference, not read back from the module, so a changed rule fails this test.
 */
import { describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { DEBT_STATUSES, type DebtStatus } from '../../libs/domain/src/debts/states.js';
import { DEBT_ACTIONS, requireTransition, transition, type DebtMove } from '../../libs/domain/src/debts/states.js';

const MOVES: readonly DebtMove[] = [...DEBT_ACTIONS, 'pay', 'refund', 'plan', 'cancel-plan', 'default', 'delete'];
const COLLECTING: DebtStatus[] = ['prepared', 'resumed', 'paused', 'paying', 'defaulted'];
const TERMINAL: readonly DebtStatus[] = ['settled', 'paid', 'withdrawn', 'deleted'];

/** docs/api.md sections 6 and 9: for each move, the statuses it is allowed from and where it leads. */
const EXPECTED: Record<DebtMove, { from: DebtStatus[]; to: DebtStatus }> = {
  ready: { from: ['initializing'], to: 'prepared' },
  pause: { from: ['prepared', 'resumed', 'paying', 'defaulted'], to: 'paused' },
  resume: { from: ['paused'], to: 'resumed' },
  dispute: { from: COLLECTING, to: 'disputed' },
  'resolve-dispute': { from: ['disputed'], to: 'resumed' },
  settle: { from: COLLECTING, to: 'settled' },
  withdraw: { from: ['initializing', 'prepared', 'paused', 'resumed', 'paying', 'defaulted', 'disputed'], to: 'withdrawn' },
  pay: { from: COLLECTING, to: 'paid' },
  refund: { from: ['paid'], to: 'resumed' },
  plan: { from: ['prepared', 'resumed', 'paused', 'defaulted'], to: 'paying' },
  'cancel-plan': { from: ['paying'], to: 'resumed' },
  default: { from: ['paying'], to: 'defaulted' },
  delete: { from: ['initializing'], to: 'deleted' },
};

const pairs = DEBT_STATUSES.flatMap((status) => MOVES.map((move) => [status, move] as const));

describe('the move and status lists', () => {
  test('client actions are exactly the seven POST /debts/{id}/{action} endpoints', () => {
    expect([...DEBT_ACTIONS].sort()).toEqual(['dispute', 'pause', 'ready', 'resolve-dispute', 'resume', 'settle', 'withdraw']);
  });

  test('statuses are the eleven of the reference (section 9 adds paying and defaulted)', () => {
    expect([...DEBT_STATUSES].sort()).toEqual(
      ['deleted', 'disputed', 'initializing', 'paid', 'paused', 'prepared', 'resumed', 'settled', 'withdrawn', 'paying', 'defaulted'].sort(),
    );
  });
});

describe('transition(status, move) for all 143 pairs', () => {
  test.each(pairs)('%s + %s', (status, move) => {
    const rule = EXPECTED[move];
    const result = transition(status, move);
    if (rule.from.includes(status)) {
      expect(result).toEqual({ ok: true, to: rule.to });
    } else {
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.message).toContain(`'${status}'`);
      expect(result.message).toContain(`allowed from: ${rule.from.join(', ')}`);
    }
  });

  test('the number of allowed pairs matches the reference table (no extra edge)', () => {
    const allowed = pairs.filter(([status, move]) => transition(status, move).ok);
    expect(allowed).toHaveLength(Object.values(EXPECTED).reduce((n, r) => n + r.from.length, 0));
  });
});

describe('terminal statuses', () => {
  test.each(TERMINAL)('%s accepts no move but a refund reopening a paid debt', (status) => {
    for (const move of MOVES) expect(transition(status, move).ok).toBe(status === 'paid' && move === 'refund');
  });

  test('every non-terminal status can still be withdrawn', () => {
    for (const status of DEBT_STATUSES.filter((s) => !TERMINAL.includes(s))) {
      expect(transition(status, 'withdraw')).toEqual({ ok: true, to: 'withdrawn' });
    }
  });

  test('only terminal statuses other than paid are dead ends', () => {
    const deadEnds = DEBT_STATUSES.filter((s) => MOVES.every((m) => !transition(s, m).ok));
    expect(deadEnds.sort()).toEqual(TERMINAL.filter((s) => s !== 'paid').sort());
  });

  test('with an active plan, resume and resolve-dispute lead back to paying; other moves ignore the plan', () => {
    expect(transition('paused', 'resume', true)).toEqual({ ok: true, to: 'paying' });
    expect(transition('disputed', 'resolve-dispute', true)).toEqual({ ok: true, to: 'paying' });
    expect(transition('paying', 'settle', true)).toEqual({ ok: true, to: 'settled' });
    expect(transition('paused', 'resume', false)).toEqual({ ok: true, to: 'resumed' });
  });

  test('every status but initializing is reachable from initializing', () => {
    const seen = new Set<DebtStatus>(['initializing']);
    const queue: DebtStatus[] = ['initializing'];
    while (queue.length) {
      const from = queue.shift()!;
      for (const move of MOVES) {
        const r = transition(from, move);
        if (r.ok && !seen.has(r.to)) {
          seen.add(r.to);
          queue.push(r.to);
        }
      }
    }
    expect([...seen].sort()).toEqual([...DEBT_STATUSES].sort());
  });
});

describe('refusal messages', () => {
  test('a payment refusal says the debt cannot accept payments', () => {
    const r = transition('initializing', 'pay');
    expect(r).toEqual({
      ok: false,
      message: "A debt in status 'initializing' cannot accept payments; allowed from: prepared, resumed, paused, paying, defaulted.",
    });
  });

  test('a delete refusal says the debt cannot be deleted', () => {
    expect(transition('prepared', 'delete')).toEqual({
      ok: false,
      message: "A debt in status 'prepared' cannot be deleted; allowed from: initializing.",
    });
  });

  test('an action refusal names the action', () => {
    expect(transition('settled', 'resolve-dispute')).toEqual({
      ok: false,
      message: "A debt in status 'settled' cannot be moved by 'resolve-dispute'; allowed from: disputed.",
    });
  });
});

describe('requireTransition', () => {
  test('returns the target status of an allowed move', () => {
    expect(requireTransition('paused', 'resume')).toBe('resumed');
    expect(requireTransition('disputed', 'resolve-dispute')).toBe('resumed');
    expect(requireTransition('initializing', 'delete')).toBe('deleted');
  });

  test('throws 409 invalid_state_transition with the refusal message', () => {
    let thrown: unknown;
    try {
      requireTransition('paid', 'settle');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const err = thrown as ApiError;
    expect(err.code).toBe('invalid_state_transition');
    expect(err.status).toBe(409);
    expect(err.type).toBe('conflict');
    expect(err.message).toBe("A debt in status 'paid' cannot be moved by 'settle'; allowed from: prepared, resumed, paused, paying, defaulted.");
  });
});
