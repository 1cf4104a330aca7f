/**
 * Which customers an operation's answer shows (docs/api.md section 18, "Access log"): the
 * `personalData` extractors of the operations that read personal data, so an operator's read is
 * recorded in the customer access log.
 */
import type { Knex } from '@dms/db';
import { debtsResource, type DebtRow } from '@dms/domain/debts';
import { findOwned } from '@dms/domain/kernel';

type Shown = { id?: string; customer_id?: string | null };
const many = (shown: unknown): Shown[] => (Array.isArray(shown) ? (shown as Shown[]) : shown ? [shown] : []);

/** Customers shown by customer objects (one or a page). */
export const customersShown = (shown: unknown): string[] => many(shown).flatMap((c) => (c.id ? [c.id] : []));

/** Customers of the objects shown that carry `customer_id` (contact details, communications). */
export const ownersShown = (shown: unknown): string[] => many(shown).flatMap((o) => (o.customer_id ? [o.customer_id] : []));

/** The customer named by the path (`/customers/{id}/…`), for answers the handler writes itself. */
export const customerInPath = (_shown: unknown, input: { params: Record<string, string> }): string[] => (input.params.id ? [input.params.id] : []);

/** The customer whose contact details are read: the path's `{customerId}`, or the customer of the path's `{debtId}`. */
export async function contactDetailsOwner(_shown: unknown, input: { params: Record<string, string>; tenantId: string; ctx: { db: Knex } }): Promise<string[]> {
  const { customerId, debtId } = input.params;
  if (customerId) return [customerId];
  const debt = debtId ? await findOwned<DebtRow>(input.ctx.db, debtsResource, input.tenantId, debtId) : undefined;
  return debt ? [debt.customer_id] : [];
}
