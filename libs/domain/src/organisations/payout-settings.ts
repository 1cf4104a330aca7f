/**
 * `configurations.payouts` of an organisation (docs/api.md section 14): how often its collected
 * money is paid out and the platform's fee on each payment. Every field is optional; what is not
 * given takes the default below. An unknown schedule or a negative (or fractional) fee is 400
 * naming the field, e.g. `configurations.payouts.fee_minimum`.
 */
import { StringEnum, Type, type Static } from '../kernel/schemas.js';

/** How often an organisation is paid out. */
export const PAYOUT_SCHEDULES = ['daily', 'weekly', 'monthly'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/** The defaults: weekly, 1.5 % (150 basis points), at least 20 minor units per payment. */
export const PAYOUT_DEFAULTS = { schedule: 'weekly', fee_basis_points: 150, fee_minimum: 20 } as const satisfies {
  schedule: PayoutSchedule;
  fee_basis_points: number;
  fee_minimum: number;
};

/** The `payouts` key of `configurations`. */
export const PayoutSettings = Type.Object(
  {
    schedule: Type.Optional(StringEnum(PAYOUT_SCHEDULES, { description: 'How often a payout is made per currency (default `weekly`).' })),
    fee_basis_points: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10_000, description: 'Platform fee per succeeded payment in basis points (1/100 %; default 150).' }),
    ),
    fee_minimum: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000_000,
        description: 'Least fee per payment, minor units of its currency (default 20); never more than the payment.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Payout schedule and platform fee (docs/api.md section 14).' },
);
export type PayoutSettings = Static<typeof PayoutSettings>;

/** The settings in force: the given ones over the defaults. */
export function payoutSettings(configurations: { payouts?: PayoutSettings } | null | undefined): Required<PayoutSettings> {
  return { ...PAYOUT_DEFAULTS, ...(configurations?.payouts ?? {}) };
}
