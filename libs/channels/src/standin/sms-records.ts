/**
 * The Reports API's synchronous records of the SMS stand-in (Vonage API reference, "Reports API":
 * `GET /v2/reports/records`): outbound records by `id` or by a `date_start`..`date_end` window of
 * at most 24 hours, HTTP Basic `api_key:api_secret`, pages linked by `_links.next.href`.
 */
import { same, type StandinRequest, type StandinResponse } from './http.js';

/** A message the SMS stand-in keeps (one JSON file under its data directory). */
export interface StoredSms {
  messageIds: string[];
  clientRef: string | null;
  from: string;
  to: string;
  text: string;
  type: string;
  dateReceived: string;
  callback: string | null;
  /** Final receipt status and error code given to it. */
  status: string;
  errCode: string;
  /** Each receipt sent: its parameters and the answers of each attempt. */
  receipts: Array<{ params: Record<string, string>; attempts: Array<number | string> }>;
}

/** Answers one records request over the kept messages. */
export function reportRecords(
  req: StandinRequest,
  kept: StoredSms[],
  options: { apiKey: string; apiSecret: string; recordsPageSize?: number },
): StandinResponse {
  const auth = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
  if (!same(auth, `${options.apiKey}:${options.apiSecret}`))
    return { status: 401, body: { title: 'Unauthorized', detail: 'You did not provide correct credentials.' } };
  const q = Object.fromEntries(req.url.searchParams);
  if (q.account_id !== options.apiKey || q.product !== 'SMS' || q.direction !== 'outbound')
    return { status: 422, body: { title: 'Unprocessable entity', detail: 'account_id, product=SMS and direction=outbound are required' } };
  let list = kept;
  if (q.id) {
    const ids = new Set(q.id.split(','));
    list = list.filter((m) => m.messageIds.some((i) => ids.has(i)));
  } else {
    const start = Date.parse(q.date_start ?? '');
    const end = Date.parse(q.date_end ?? '');
    if (!(end > start) || end - start > 24 * 3600_000)
      return { status: 422, body: { title: 'Invalid filter', detail: 'date_start and date_end, at most 24 hours apart' } };
    list = list.filter((m) => Date.parse(m.dateReceived) >= start && Date.parse(m.dateReceived) < end);
  }
  const rows = list
    .sort((a, b) => a.dateReceived.localeCompare(b.dateReceived))
    .flatMap((m) =>
      m.messageIds.map((id) => ({
        account_id: options.apiKey,
        message_id: id,
        client_ref: m.clientRef ?? '',
        direction: 'outbound',
        from: m.from,
        to: m.to,
        status: m.receipts.length ? m.status : 'accepted',
        error_code: m.errCode,
        date_received: m.dateReceived,
      })),
    );
  const size = options.recordsPageSize ?? 1000;
  const offset = Number(q.cursor ?? 0);
  const page = rows.slice(offset, offset + size);
  const next = offset + size < rows.length ? new URLSearchParams({ ...q, cursor: String(offset + size) }) : null;
  return {
    status: 200,
    body: {
      request_status: 'SUCCESS',
      items_count: page.length,
      records: page,
      _links: { self: { href: `${req.url.pathname}${req.url.search}` }, ...(next ? { next: { href: `/v2/reports/records?${next.toString()}` } } : {}) },
    },
  };
}
