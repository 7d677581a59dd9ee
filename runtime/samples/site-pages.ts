// Reading the demo site from outside any event loop of ours: a plain node:http GET, and the
// list of content pages the site publishes at `/api/pages.json`.
//
// Used to prepare samples and the comparison (which pages to fetch, what they contain), never
// inside what a sample measures or shows, so it is deliberately the most ordinary client.
// Invariant: every response is read to the end; `agent` lets a caller fetch many pages over a
// bounded number of keep-alive connections and destroy them afterwards.

import * as http from 'node:http';

export interface PlainResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

export function plainGet(url: string, agent?: http.Agent): Promise<PlainResponse> {
  return new Promise<PlainResponse>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** The paths of the site's content pages (`/page/1/`, ...), in order, from `/api/pages.json`. */
export async function listPagePaths(siteUrl: string): Promise<string[]> {
  const url = new URL('/api/pages.json', siteUrl).href;
  const res = await plainGet(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return pagePathsOf(url, res.body.toString('utf8'));
}

/** The content pages' paths in the text of the site's `/api/pages.json` (read from `url`). */
export function pagePathsOf(url: string, text: string): string[] {
  const data: unknown = JSON.parse(text);
  if (typeof data !== 'object' || data === null || !Array.isArray((data as { links?: unknown }).links)) {
    throw new Error(`${url} is not the demo site's page list`);
  }
  const links = (data as { links: unknown[] }).links;
  return links.filter((l): l is string => typeof l === 'string');
}
