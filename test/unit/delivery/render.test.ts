/**
 * The one event renderer and the endpoint versions of @dms/webhook-delivery (docs/api.md sections
 * 3 and 7): the body every delivery carries and `GET /events/{id}` returns, per supported version.
 */
import { describe, expect, test } from '@jest/globals';
import {
  LATEST_WEBHOOK_VERSION,
  WEBHOOK_VERSIONS,
  WEBHOOK_VERSION_NAMES,
  eventApiVersion,
  isWebhookVersion,
  renderEvent,
  webhookVersionProblem,
} from '@dms/webhook-delivery';

const object = { id: 'deb_1a2B3c4D5e6F7g8H9i0JkLmN', object: 'debt', status: { value: 'prepared' }, metadata: { k: 'v' } };
const stored = {
  id: 'evt_1a2B3c4D5e6F7g8H9i0JkLmN',
  type: 'debt.prepared',
  created_at: new Date('2026-11-02T03:04:05.678Z'),
  data: { object },
  // Columns a reader may have selected besides: not part of the body.
  tenant_id: 'ten_1a2B3c4D5e6F7g8H9i0JkLmN',
  seq: 42,
};

describe('renderEvent, per endpoint version', () => {
  test.each(WEBHOOK_VERSION_NAMES)('%s: the documented event shape, nothing more', (version) => {
    const body = renderEvent(stored, eventApiVersion(version));
    expect(body).toStrictEqual({
      id: stored.id,
      object: 'event',
      type: 'debt.prepared',
      api_version: WEBHOOK_VERSIONS[version],
      created_at: '2026-11-02T03:04:05.678Z',
      livemode: true,
      data: { object },
    });
    expect(Object.keys(body)).toEqual(['id', 'object', 'type', 'api_version', 'created_at', 'livemode', 'data']);
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });

  test("livemode is the stored object's own (docs/api.md section 15); an event stored before test mode was live", () => {
    expect(renderEvent({ ...stored, data: { object: { ...object, livemode: false } } }, '2026-11-01').livemode).toBe(false);
    expect(renderEvent({ ...stored, data: { object: { ...object, livemode: true } } }, '2026-11-01').livemode).toBe(true);
    expect(renderEvent(stored, '2026-11-01').livemode).toBe(true);
  });

  test('v20261101 receives the 2026-11-01 shape', () => {
    expect(renderEvent(stored, eventApiVersion('v20261101')).api_version).toBe('2026-11-01');
  });

  test('a timestamp read as text renders the same instant as a Date', () => {
    const fromText = renderEvent({ ...stored, created_at: '2026-11-02 03:04:05.678+00' }, '2026-11-01');
    expect(fromText.created_at).toBe('2026-11-02T03:04:05.678Z');
  });

  test('the event as the API reads it: in the API version it was recorded in', () => {
    expect(renderEvent({ ...stored, api_version: '2026-11-01' }, '2026-11-01').api_version).toBe('2026-11-01');
  });
});

describe('endpoint versions', () => {
  test('the newest supported version is the default', () => {
    expect(LATEST_WEBHOOK_VERSION).toBe(WEBHOOK_VERSION_NAMES.at(-1));
    expect(WEBHOOK_VERSION_NAMES).toEqual([...WEBHOOK_VERSION_NAMES].sort());
    expect(WEBHOOK_VERSION_NAMES).toContain('v20261101');
  });

  test('a stored version no longer supported receives the newest shape', () => {
    expect(eventApiVersion('v20200101')).toBe(WEBHOOK_VERSIONS[LATEST_WEBHOOK_VERSION]);
  });

  test('isWebhookVersion knows only the supported labels', () => {
    expect(isWebhookVersion('v20261101')).toBe(true);
    expect(isWebhookVersion('v20261102')).toBe(false);
    expect(isWebhookVersion('toString')).toBe(false);
  });

  test.each([
    ['v20261101', null],
    ['20261101', 'must be "v" followed by a date as YYYYMMDD'],
    ['v2026-11-01', 'must be "v" followed by a date as YYYYMMDD'],
    ['v20260231', 'is not a real date'],
    ['v20261301', 'is not a real date'],
    ['v20250101', 'is not a supported version (supported: v20250401, v20261101)'],
  ])('webhookVersionProblem(%p) is %p', (value, problem) => {
    expect(webhookVersionProblem(value)).toBe(problem);
  });
});
