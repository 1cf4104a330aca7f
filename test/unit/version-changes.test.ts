/**
 * The versions table (docs/api.md section 15) as pure transforms: each entry turns the newest shape
 * into the previous version's, embedded objects included, and the newest version is left alone.
 */
import { describe, expect, test } from '@jest/globals';
import { API_VERSIONS, LATEST_API_VERSION, VERSION_CHANGES, changesSince, downgrade, impliedRelations } from '@dms/webhook-delivery';

describe('versions table', () => {
  test('every change names a supported version newer than the oldest, newest first', () => {
    for (const c of VERSION_CHANGES) expect(API_VERSIONS.slice(1)).toContain(c.version);
    const order = VERSION_CHANGES.map((c) => c.version);
    expect([...order].sort().reverse()).toEqual(order);
    expect(changesSince(LATEST_API_VERSION)).toEqual([]);
  });

  test('the newest version is the value itself', () => {
    const v = { object: 'webhook_endpoint', id: 'wh_1' };
    expect(downgrade(v, LATEST_API_VERSION)).toBe(v);
  });

  test('line item references become debt_id/invoice_id, in place, expanded or not', () => {
    const li = { id: 'li_1', object: 'line_item', debt: { id: 'deb_1', object: 'debt' }, invoice: null, amount: 5 };
    const out = downgrade(li, '2025-04-01') as Record<string, unknown>;
    expect(out).toEqual({ id: 'li_1', object: 'line_item', debt_id: 'deb_1', invoice_id: null, amount: 5 });
    expect(Object.keys(out)).toEqual(['id', 'object', 'debt_id', 'invoice_id', 'amount']);
  });

  test('implied debt lists collapse to ids only on top-level debts; asked-for lists stay objects', () => {
    expect(impliedRelations('debt', '2025-04-01')).toEqual(['invoices', 'line_items', 'payments', 'payment_plans']);
    expect(impliedRelations('debt', LATEST_API_VERSION)).toEqual([]);
    const debt = { id: 'deb_1', object: 'debt', payments: [{ id: 'pay_1', object: 'payment' }], invoices: [{ id: 'inv_1', object: 'invoice' }] };
    const list = { object: 'list', data: [debt] };
    const out = downgrade(list, '2025-04-01', new Set(['invoices'])) as { data: Array<Record<string, unknown>> };
    expect(out.data[0]!.invoices).toEqual(['inv_1']);
    expect(out.data[0]!.payments).toEqual([{ id: 'pay_1', object: 'payment' }]);
    const embedded = downgrade({ object: 'payment', id: 'pay_2', debt }, '2025-04-01', new Set(['invoices'])) as { debt: Record<string, unknown> };
    expect(embedded.debt.invoices).toEqual([{ id: 'inv_1', object: 'invoice' }]);
  });

  test('an event takes the public API envelope, its object in that version too', () => {
    const ev = {
      id: 'evt_1',
      object: 'event',
      type: 'webhook_endpoint.x',
      api_version: LATEST_API_VERSION,
      created_at: 't',
      data: { object: { object: 'webhook_endpoint', id: 'wh_1' } },
    };
    expect(downgrade(ev, '2025-04-01')).toEqual({
      id: 'evt_1',
      object: 'event',
      type: 'webhook_endpoint.x',
      created_at: 't',
      livemode: true,
      data: { object: 'webhook', id: 'wh_1' },
    });
    expect((downgrade({ ...ev, livemode: false }, '2025-04-01') as { livemode: boolean }).livemode).toBe(false);
  });
});
