/**
 * The debt lifecycle (docs/api.md sections 6, 9 and 12) as a pure function: every (status, move) pair is
 * either the documented target or a refusal, terminal statuses accept no move, and refusals
 * become 409 `invalid_state_transition`. The expected table is written out here by hand from the
 * reference, not read back from the module, so a changed rule fails this test.
 */
import { describe, expect, test } from '@jest/globals';
import { ApiError } from '@dms/errors';
import { DEBT_STATUSES, type DebtStatus } from '../../libs/domain/src/debts/states.js';
import { DEBT_ACTIONS, requireTransition, transition, type DebtMove } from '../../libs/domain/src/debts/states.js';

const MOVES: readonly DebtMove[] = [
  ...DEBT_ACTIONS,
  'delete',
  'adjust',
  'pay',
  'refund',
  'plan',
  'plan-proposed',
  'plan-due',
  'cancel-plan',
  'default',
  'analyse',
  'enrich',
  'contact',
  'establish-contact',
  'fail-contact',
  'exhaust',
  'query',
  'require-follow-up',
  'assess',
  'recover',
  'protect',
  'return',
  'discharge',
  'close',
];
const ENGINE: DebtStatus[] = ['analysing', 'enriching', 'contacted', 'contact_established', 'contact_failed', 'process_exhausted'];
/** Worked: the engine may contact the customer. */
const WORKED: DebtStatus[] = ['prepared', 'resumed', 'adjusted', ...ENGINE, 'arranging', 'paying', 'defaulted', 'follow_up_required', 'recovering', 'open'];
/** Collected, but no contact. */
const HELD: DebtStatus[] = ['paused', 'queried', 'assessing', 'legal_protection'];
const COLLECTING: DebtStatus[] = [...WORKED, ...HELD];
const TERMINAL: readonly DebtStatus[] = ['settled', 'paid', 'withdrawn', 'deleted', 'returned', 'discharged', 'closed'];
const OPEN: DebtStatus[] = [...COLLECTING, 'initializing', 'disputed'];
const RESUMABLE: DebtStatus[] = ['paused', 'queried', 'follow_up_required', 'assessing', 'recovering', 'legal_protection'];
const PLANNABLE: DebtStatus[] = [...WORKED.filter((s) => s !== 'paying' && s !== 'arranging'), 'paused'];

/** docs/api.md sections 6, 9 and 12: for each move, the statuses it is allowed from and where it leads. */
const EXPECTED: Record<DebtMove, { from: DebtStatus[]; to: DebtStatus }> = {
  ready: { from: ['initializing'], to: 'prepared' },
  pause: { from: WORKED, to: 'paused' },
  resume: { from: RESUMABLE, to: 'resumed' },
  dispute: { from: COLLECTING, to: 'disputed' },
  'resolve-dispute': { from: ['disputed'], to: 'resumed' },
  settle: { from: COLLECTING, to: 'settled' },
  withdraw: { from: OPEN, to: 'withdrawn' },
  delete: { from: ['initializing'], to: 'deleted' },
  adjust: { from: ENGINE, to: 'adjusted' },
  pay: { from: COLLECTING, to: 'paid' },
  refund: { from: ['paid'], to: 'resumed' },
  plan: { from: PLANNABLE, to: 'paying' },
  'plan-proposed': { from: PLANNABLE, to: 'arranging' },
  'plan-due': { from: ['arranging'], to: 'paying' },
  'cancel-plan': { from: ['paying', 'arranging'], to: 'resumed' },
  default: { from: ['paying'], to: 'defaulted' },
  analyse: { from: ['prepared', 'adjusted', 'resumed', 'enriching', 'contact_failed'], to: 'analysing' },
  enrich: { from: ['analysing'], to: 'enriching' },
  contact: { from: ['analysing'], to: 'contacted' },
  'establish-contact': { from: ['analysing', 'enriching', 'contacted', 'contact_failed', 'process_exhausted'], to: 'contact_established' },
  'fail-contact': { from: ['analysing', 'contacted'], to: 'contact_failed' },
  exhaust: { from: ['contacted', 'contact_established'], to: 'process_exhausted' },
  query: { from: WORKED, to: 'queried' },
  'require-follow-up': { from: [...WORKED.filter((s) => s !== 'follow_up_required'), 'queried'], to: 'follow_up_required' },
  assess: { from: [...WORKED, 'queried', 'disputed'], to: 'assessing' },
  recover: { from: ['defaulted', 'assessing', 'process_exhausted'], to: 'recovering' },
  protect: { from: [...COLLECTING.filter((s) => s !== 'legal_protection'), 'disputed'], to: 'legal_protection' },
  return: { from: OPEN, to: 'returned' },
  discharge: { from: OPEN, to: 'discharged' },
  close: { from: OPEN, to: 'closed' },
};

const pairs = DEBT_STATUSES.flatMap((status) => MOVES.map((move) => [status, move] as const));

describe('the move and status lists', () => {
  test('client actions are exactly the seven POST /debts/{id}/{action} endpoints', () => {
    expect([...DEBT_ACTIONS].sort()).toEqual(['dispute', 'pause', 'ready', 'resolve-dispute', 'resume', 'settle', 'withdraw']);
  });

  test('statuses are the 28 of the reference (section 12)', () => {
    expect([...DEBT_STATUSES].sort()).toEqual(
      [
        ...['initializing', 'prepared', 'paused', 'resumed', 'withdrawn', 'deleted', 'adjusted'],
        ...['analysing', 'enriching', 'contacted', 'contact_established', 'contact_failed', 'process_exhausted'],
        ...['arranging', 'paying', 'defaulted', 'settled', 'paid'],
        ...['queried', 'disputed', 'follow_up_required'],
        ...['assessing', 'recovering', 'legal_protection', 'returned', 'discharged', 'closed'],
        'open',
      ].sort(),
    );
    expect(DEBT_STATUSES).toHaveLength(28);
  });
});

describe(`transition(status, move) for all ${28 * MOVES.length} pairs`, () => {
  test.each(pairs)('%s + %s', (status, move) => {
    const rule = EXPECTED[move];
    const result = transition(status, move);
    if (rule.from.includes(status)) {
      expect(result).toEqual({ ok: true, to: rule.to });
    } else {
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.message).toContain(`'${status}'`);
      expect(result.message.split('allowed from: ')[1]!.replace(/\.$/, '').split(', ').sort()).toEqual([...rule.from].sort());
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

  test('every status but initializing and the legacy open is reachable from initializing', () => {
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
    expect([...seen].sort()).toEqual(DEBT_STATUSES.filter((s) => s !== 'open').sort());
  });
});

describe('refusal messages', () => {
  test('a payment refusal says the debt cannot accept payments', () => {
    const r = transition('initializing', 'pay');
    expect(r).toEqual({
      ok: false,
      message: `A debt in status 'initializing' cannot accept payments; allowed from: ${COLLECTING.join(', ')}.`,
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
    expect(err.message).toBe(`A debt in status 'paid' cannot be moved by 'settle'; allowed from: ${COLLECTING.join(', ')}.`);
  });
});
