// What every approach of the comparison does for one page, and what it reports: the same
// HTTP/1.0 GET with `Connection: close` (the teaching stages' request), read to the close, the
// status taken from the response. So approaches differ only in how they wait.

import { buildHttp10Request, parseHttp10Response } from '../crawler/http10-response';

export interface PageResult {
  path: string;
  /** null when the fetch failed. */
  status: number | null;
  /** Bytes received: the whole response (the body only for the runtime client, which parses the head itself). */
  bytes: number;
  error?: string;
}

/** Where to fetch from. */
export interface Origin {
  host: string;
  port: number;
}

export function requestFor(origin: Origin, path: string): Buffer {
  return buildHttp10Request(new URL(path, `http://${origin.host}:${origin.port}/`));
}

/** The result of a complete response (a response that does not parse is a failure). */
export function resultOf(path: string, raw: Buffer): PageResult {
  try {
    return { path, status: parseHttp10Response(raw).status, bytes: raw.length };
  } catch (error) {
    return failureOf(path, error);
  }
}

export function failureOf(path: string, error: unknown): PageResult {
  return { path, status: null, bytes: 0, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/** How many results are a 200. */
export function countOk(results: readonly { status?: number | null }[]): number {
  return results.filter((r) => r.status === 200).length;
}
