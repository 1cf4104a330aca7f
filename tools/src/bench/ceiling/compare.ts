/**
 * The check that makes the bare server a ceiling of the same work: before any load, one request
 * to the API and to the bare server for the same page must give the same body, byte for byte, and
 * the same `X-Total-Count` (docs/api.md section 4). A ceiling serving other bytes (fewer fields,
 * other rows) would flatter or slander the API.
 */

/**
 * Fetches `path` from both servers and compares them.
 * @param items the page's limit: it must hold that many objects, or all of them when fewer match
 *   (`X-Total-Count`), and never none (a run over an empty page would measure nothing)
 * @returns the body length, bytes
 * @throws when either answers other than 200, the page holds another number of objects, or the
 *   bodies or totals differ (the message shows where the bodies first differ)
 */
export async function assertSamePage(apiUrl: string, bareUrl: string, path: string, headers: Record<string, string>, items: number): Promise<number> {
  const [api, bare] = await Promise.all([fetch(`${apiUrl}${path}`, { headers }), fetch(`${bareUrl}${path}`, { headers })]);
  const [a, b] = await Promise.all([api.text(), bare.text()]);
  if (api.status !== 200 || bare.status !== 200) throw new Error(`GET ${path}: API ${api.status}, bare ${bare.status}: ${b.slice(0, 200)}`);
  if (a !== b) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    throw new Error(
      `GET ${path}: the bare server's body differs from the API's at byte ${i}:\nAPI:  …${a.slice(Math.max(0, i - 80), i + 80)}\nbare: …${b.slice(Math.max(0, i - 80), i + 80)}`,
    );
  }
  const [ta, tb] = [api.headers.get('x-total-count'), bare.headers.get('x-total-count')];
  const count = (JSON.parse(a) as { data?: unknown[] }).data?.length;
  const expected = Math.min(items, Number(ta));
  if (!count || count !== expected) throw new Error(`GET ${path}: ${count} objects, ${expected} expected`);
  if (ta !== tb) throw new Error(`GET ${path}: X-Total-Count ${ta} (API) vs ${tb} (bare)`);
  const [ra, rb] = [api.headers.get('x-total-count-relation'), bare.headers.get('x-total-count-relation')];
  if (ra !== rb) throw new Error(`GET ${path}: X-Total-Count-Relation ${ra} (API) vs ${rb} (bare)`);
  return Buffer.byteLength(a);
}
