/**
 * A tenant's clock (docs/api.md section 15): the moment its time-driven work (missed instalments,
 * timed pauses, and whatever else compares against SQL `tenant_now(tenant)`) is decided at. A live
 * tenant's clock is the database's; a test-mode tenant may move its own forward, never back, and
 * only its own work runs sooner.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { Type, timestampSchema, type Static } from '../kernel/schemas.js';
import { tenantsResource } from './resource.js';

/** The public test clock, `GET /test_helpers/clock`. */
export const TestClock = Type.Object({
  object: Type.Literal('test_clock'),
  now: Type.String({ format: 'date-time', description: "The tenant's current time: the real time plus `offset_seconds`." }),
  offset_seconds: Type.Integer({ minimum: 0, description: "How far the tenant's clock runs ahead of real time, in seconds." }),
});
export type TestClock = Static<typeof TestClock>;

/** `POST /test_helpers/clock/advance` body: exactly one of `seconds` or `to`. */
export const ClockAdvance = Type.Object(
  {
    seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 * 366 * 86_400, description: 'Move the clock this many seconds forward.' })),
    to: Type.Optional(timestampSchema('Move the clock to this time (RFC 3339); not before the current one.')),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);
export type ClockAdvance = Static<typeof ClockAdvance>;

/** The furthest a clock may run ahead: ten years, in seconds. */
export const MAX_CLOCK_OFFSET_SECONDS = 10 * 366 * 86_400;

async function clockOf(db: Knex | Knex.Transaction, tenantId: string, forUpdate = false): Promise<{ now: Date; offset: number }> {
  const q = db(tenantsResource.table)
    .where({ id: tenantId })
    .first({ now: db.raw('now() + make_interval(secs => clock_offset_seconds)'), offset: 'clock_offset_seconds' });
  if (forUpdate) q.forUpdate();
  const row = (await q) as { now: Date; offset: string | number } | undefined;
  if (!row) throw new ApiError('resource_missing', `No such tenant: '${tenantId}'`);
  return { now: row.now, offset: Number(row.offset) };
}

/** 400 `validation_failed` naming body field `param`, as schema failures are. */
const invalid = (param: string, message: string) => new ApiError('validation_failed', message, { param, errors: [{ param, message }] });

const shown = (c: { now: Date; offset: number }): TestClock => ({ object: 'test_clock', now: c.now.toISOString(), offset_seconds: c.offset });

/**
 * Reads tenant `tenantId`'s clock: `{object: "test_clock", now, offset_seconds}`.
 * @throws ApiError 404 `resource_missing` when the tenant does not exist
 */
export async function readTenantClock(db: Knex, tenantId: string): Promise<TestClock> {
  return shown(await clockOf(db, tenantId));
}

/**
 * Moves a test-mode tenant's clock forward by `seconds`, or to the time `to` (under the tenant's
 * row lock, so two concurrent advances add up). The caller ensures the tenant is a test tenant
 * (the database refuses an offset on a live one: migration 050_test_mode).
 * @returns the clock after the move
 * @throws ApiError 400 `validation_failed` naming `to` when it is before the tenant's current time,
 *   or naming the field when the clock would run more than ten years ahead
 */
export async function advanceTenantClock(db: Knex, tenantId: string, by: ClockAdvance): Promise<TestClock> {
  return db.transaction(async (trx) => {
    const current = await clockOf(trx, tenantId, true);
    let seconds: number;
    if (by.to !== undefined) {
      const target = Date.parse(by.to);
      if (target < current.now.getTime())
        throw invalid('to', `to (${by.to}) is before the test clock's now, ${current.now.toISOString()}: a clock only moves forward.`);
      seconds = Math.ceil((target - current.now.getTime()) / 1000);
    } else {
      seconds = by.seconds!;
    }
    const offset = current.offset + seconds;
    if (offset > MAX_CLOCK_OFFSET_SECONDS) {
      throw invalid(by.to !== undefined ? 'to' : 'seconds', `The test clock may run at most ${MAX_CLOCK_OFFSET_SECONDS} seconds (ten years) ahead.`);
    }
    await trx(tenantsResource.table).where({ id: tenantId }).update({ clock_offset_seconds: offset });
    return shown(await clockOf(trx, tenantId));
  });
}
