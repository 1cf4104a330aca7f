/**
 * Reading list responses in the pagination tests: RFC 8288 `Link` headers and walking pages by
 * following them, as a client would.
 */
import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import type { apiAs } from '../support/harness.js';

/** `rel` -> absolute URL of a `Link` header (RFC 8288). */
export function parseLinks(header: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (m) links[m[2]!] = m[1]!;
  }
  return links;
}

/** One fetched page: ids in order, parsed links and the count headers. */
export interface FetchedPage {
  ids: string[];
  links: Record<string, string>;
  total: number;
  items: number;
}

/** Reads a 200 list response, checking the body and header shapes every page must have. */
export function readPage(res: Response): FetchedPage {
  expect(res.status).toBe(200);
  expect(res.body.object).toBe('list');
  expect(Array.isArray(res.body.data)).toBe(true);
  const ids = (res.body.data as Array<{ id: string }>).map((o) => o.id);
  return { ids, links: parseLinks(res.headers.link), total: Number(res.headers['x-total-count']), items: Number(res.headers['x-page-items']) };
}

/** GETs an absolute URL of the API (a `Link` target) with the agent's token. */
export async function follow(api: ReturnType<typeof apiAs>, absoluteUrl: string, apiUrl: string): Promise<FetchedPage> {
  expect(absoluteUrl.startsWith(`${apiUrl}/`)).toBe(true);
  return readPage(await api.get(absoluteUrl.slice(apiUrl.length)));
}

/**
 * Follows `rel` links from `start` until there is none.
 * @returns every page, `start` included, in the order visited
 */
export async function walk(api: ReturnType<typeof apiAs>, start: FetchedPage, rel: 'next' | 'prev', apiUrl: string): Promise<FetchedPage[]> {
  const pages = [start];
  let current = start;
  while (current.links[rel]) {
    if (pages.length > 1000) throw new Error('pagination does not terminate');
    current = await follow(api, current.links[rel], apiUrl);
    pages.push(current);
  }
  return pages;
}
