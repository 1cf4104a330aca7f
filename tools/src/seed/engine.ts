/**
 * The collection engine's part of the seed (docs/api.md sections 12 and 13): a debt in every
 * status of the lifecycle the status moves alone can reach (the shortest path through the debt
 * machine from `initializing`, found by search, so a new status is seeded without a change here),
 * one `arranging` debt with its proposed plan, and communications of every channel and direction
 * (outbound sent, delivered, failed and bounced; inbound received) on debts the engine contacted.
 * Every move is made by the domain functions the API and the worker use, as `whodunnit` seed.
 */
import type { Knex } from '@dms/db';
import { DEBT_MACHINE, createDebt, createPlan, moveDebt, type Debt, type DebtCreate, type DebtMove, type DebtStatus } from '@dms/domain/debts';
import { insertInbound, insertOutbound, loadCommunication, moveCommunication, type CommunicationMove } from '@dms/domain/communications';

/** Moves that need more than a status: money, plans (the money stories seed those). */
const NOT_BY_STATUS_ALONE = new Set<string>([
  'pay',
  'refund',
  'plan',
  'plan-proposed',
  'plan-due',
  'cancel-plan',
  'default',
  'resume-to-plan',
  'resolve-to-plan',
]);

/** The shortest list of moves from `initializing` to each status the moves alone reach. */
export function pathsToStatuses(): Map<DebtStatus, DebtMove[]> {
  const paths = new Map<DebtStatus, DebtMove[]>([['initializing', []]]);
  const queue: DebtStatus[] = ['initializing'];
  while (queue.length) {
    const from = queue.shift()!;
    for (const move of DEBT_MACHINE.movesFrom(from)) {
      if (NOT_BY_STATUS_ALONE.has(move)) continue;
      const to = DEBT_MACHINE.table[move].to;
      if (paths.has(to)) continue;
      paths.set(to, [...paths.get(from)!, move as DebtMove]);
      queue.push(to);
    }
  }
  return paths;
}

/** What one seeded communication is: channel, direction and where its status ends. */
const COMMUNICATIONS: Array<{ method: 'email' | 'sms' | 'letter'; moves: CommunicationMove[] } | { method: 'email' | 'sms'; inbound: true }> = [
  { method: 'email', moves: ['send', 'deliver'] },
  { method: 'email', moves: ['send', 'bounce'] },
  { method: 'sms', moves: ['send', 'deliver'] },
  { method: 'sms', moves: ['send', 'fail'] },
  { method: 'letter', moves: ['send'] },
  { method: 'email', moves: ['fail'] },
  { method: 'email', inbound: true },
  { method: 'sms', inbound: true },
];

/** Seeds communications of every channel and direction on `debt` (contacted by the engine). */
async function seedCommunications(db: Knex, tenantId: string, debt: Debt): Promise<number> {
  for (const [step, c] of COMMUNICATIONS.entries()) {
    await db.transaction(async (trx) => {
      const reference = `seed-${debt.id}-${step}`;
      if ('inbound' in c) {
        await insertInbound(trx, tenantId, {
          debtId: debt.id,
          customerId: debt.customer,
          deliveryMethod: c.method,
          provider: c.method === 'email' ? 'smtp' : 'vonage',
          providerReference: reference,
          contactDetailId: null,
          subject: c.method === 'email' ? 'Re: your account' : null,
          body: 'I can pay part of it next month.',
        });
        return;
      }
      const failure = c.moves[0] === 'fail' ? 'no email provider is configured (SMTP_URL)' : undefined;
      const row = await insertOutbound(
        trx,
        tenantId,
        {
          debtId: debt.id,
          customerId: debt.customer,
          deliveryMethod: c.method,
          step,
          templateId: null,
          templateVersion: null,
          templateName: `seed-${c.method}`,
          contactDetailId: null,
          subject: c.method === 'sms' ? null : 'Your account',
          body: 'An amount is outstanding on your account.',
          ...(failure ? { failure } : {}),
        },
        new Date(),
      );
      if (!row || failure) return;
      let current = row;
      for (const move of c.moves) {
        const extra =
          move === 'send' ? { provider: c.method === 'email' ? 'smtp' : c.method === 'sms' ? 'vonage' : 'local-print', provider_reference: reference } : {};
        current = (await moveCommunication(trx, await loadCommunication(trx, tenantId, current.id, true), move, extra)) ?? current;
      }
    });
  }
  return COMMUNICATIONS.length;
}

/**
 * Seeds one debt per status the moves reach, an `arranging` debt, and communications.
 * @param input makes the create body of each debt
 * @returns how many debts and communications were made
 */
export async function seedWorkedDebts(
  db: Knex,
  tenantId: string,
  input: () => DebtCreate,
  whodunnit: string,
): Promise<{ debts: number; communications: number }> {
  let debts = 0;
  let communications = 0;
  for (const [status, moves] of pathsToStatuses()) {
    let debt = await createDebt(db, tenantId, input());
    for (const move of moves) debt = await moveDebt(db, tenantId, debt.id, move, { reason: `seed: to ${status}`, whodunnit });
    debts += 1;
    if (status === 'contacted') {
      communications += await seedCommunications(db, tenantId, debt);
      const arranging = await createDebt(db, tenantId, input());
      for (const move of moves) await moveDebt(db, tenantId, arranging.id, move, { reason: 'seed: to arranging', whodunnit });
      const startOn = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
      await createPlan(db, tenantId, arranging.id, { frequency: 'monthly', start_on: startOn, instalment_count: 3 }, { whodunnit });
      debts += 1;
    }
  }
  return { debts, communications };
}
