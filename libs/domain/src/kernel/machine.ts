/**
 * State machines as data (docs/api.md sections 6, 8, 9 and 12): a typed table of moves, each with
 * the statuses it starts from and the status it leads to, and the pure `transition()` that reads
 * it. Every status change of debts, payments, payment plans and instalments is decided by its
 * machine and written by its store, nowhere else; a refusal becomes 409
 * `invalid_state_transition` naming the statuses the move is allowed from.
 */
import { ApiError } from '@dms/errors';

/** One move: where it may start, where it leads. */
export interface Rule<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
}

/** The outcome of asking for a move: the next status, or why the move is not allowed. */
export type Transition<S extends string> = { ok: true; to: S } | { ok: false; message: string };

/** A machine: its statuses, its table, and the functions that read the table. */
export interface Machine<S extends string, M extends string> {
  /** What messages call one of its objects, e.g. `debt`. */
  readonly noun: string;
  readonly statuses: readonly S[];
  readonly moves: readonly M[];
  readonly table: Readonly<Record<M, Rule<S>>>;
  /** Decides `move` from `status`. Pure: callers apply it under their own row lock. */
  transition(status: S, move: M): Transition<S>;
  /**
   * Like `transition`, for callers that stop on refusal.
   * @throws ApiError 409 `invalid_state_transition`
   */
  require(status: S, move: M): S;
  /** True when `move` is allowed from `status`. */
  allows(status: S, move: M): boolean;
  /** The moves allowed from `status`, in table order. */
  movesFrom(status: S): M[];
}

/** How a machine is declared. */
export interface MachineSpec<S extends string, M extends string> {
  noun: string;
  statuses: readonly S[];
  table: Readonly<Record<M, Rule<S>>>;
  /** What the refusal says the object cannot do, e.g. "accept payments" (default: "be moved by '<move>'"). */
  refusal?: (move: M) => string | undefined;
}

/**
 * Builds a machine from its table.
 * @throws Error when a rule names a status the machine does not have (a programming error)
 */
export function defineMachine<const S extends string, const M extends string>(spec: MachineSpec<S, M>): Machine<S, M> {
  const moves = Object.keys(spec.table) as M[];
  for (const move of moves) {
    const rule = spec.table[move];
    for (const s of [...rule.from, rule.to]) if (!spec.statuses.includes(s)) throw new Error(`${spec.noun} move '${move}' names unknown status '${s}'`);
  }
  const allows = (status: S, move: M) => spec.table[move].from.includes(status);
  const transition = (status: S, move: M): Transition<S> => {
    const rule = spec.table[move];
    if (rule.from.includes(status)) return { ok: true, to: rule.to };
    const what = spec.refusal?.(move) ?? `be moved by '${move}'`;
    const article = /^[aeiou]/.test(spec.noun) ? 'An' : 'A';
    return { ok: false, message: `${article} ${spec.noun} in status '${status}' cannot ${what}; allowed from: ${rule.from.join(', ')}.` };
  };
  return {
    noun: spec.noun,
    statuses: spec.statuses,
    moves,
    table: spec.table,
    transition,
    allows,
    require(status, move) {
      const result = transition(status, move);
      if (!result.ok) throw new ApiError('invalid_state_transition', result.message);
      return result.to;
    },
    movesFrom: (status) => moves.filter((m) => allows(status, m)),
  };
}
