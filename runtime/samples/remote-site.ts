// A copy of some demo-site pages served from another thread: the stand-in for "a server on
// another machine" that the blocking approaches need.
//
// Why: a blocking fetch blocks the calling thread (Atomics.wait), and the demo site usually
// runs on that same thread, so it could not answer: the program would wait for itself. Like
// the source article's pages on the internet, the pages must be served by someone else. This
// module records what the demo site answers at the given paths (status, content type, bytes),
// then serves exactly that from a worker thread, each response held back `latencyMs` as the
// demo site's own `latencyMs` option does. Every approach of the comparison fetches from the
// same copy, so they all meet the same server.
//
// Invariants: the copy answers only the recorded paths (404 otherwise; the query is ignored);
// `requestCount()` is exact at any moment, even while this thread is blocked (it is a shared
// counter the server thread increments); close() terminates the thread, dropping its sockets.

import * as http from 'node:http';
import { startEvalWorker } from './eval-worker';
import { plainGet } from './site-pages';
import { REMOTE_SITE_THREAD_SOURCE } from './worker-sources';

export interface RemoteSite {
  /** e.g. `http://127.0.0.1:PORT/` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly latencyMs: number;
  /** Requests the copy has received so far. */
  requestCount(): number;
  close(): Promise<void>;
}

interface RecordedPage {
  path: string;
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** How many pages are recorded at once. */
const RECORDING_CONNECTIONS = 64;

export async function startRemoteCopy(siteUrl: string, paths: readonly string[], options: { latencyMs: number }): Promise<RemoteSite> {
  const latencyMs = options.latencyMs;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latencyMs must be a finite number >= 0, got ${String(latencyMs)}`);
  // Recorded by path: the copy ignores the query, as the demo site does.
  const unique = [...new Set(paths.map((p) => p.replace(/[?#].*$/s, '')))];
  const agent = new http.Agent({ keepAlive: true, maxSockets: RECORDING_CONNECTIONS });
  const pages: RecordedPage[] = [];
  try {
    let next = 0;
    const recordSome = async (): Promise<void> => {
      while (next < unique.length) {
        const path = unique[next++]!;
        const res = await plainGet(new URL(path, siteUrl).href, agent);
        pages.push({ path, status: res.status, contentType: res.contentType, body: new Uint8Array(res.body) });
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECORDING_CONNECTIONS, unique.length) }, recordSome));
  } finally {
    agent.destroy();
  }
  const counter = new SharedArrayBuffer(4);
  const counts = new Int32Array(counter);
  const { worker, hello } = await startEvalWorker<{ port: number }>(REMOTE_SITE_THREAD_SOURCE, { pages, latencyMs, counter });
  worker.unref();
  const host = '127.0.0.1';
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${hello.port}/`,
    host,
    port: hello.port,
    latencyMs,
    requestCount: () => Atomics.load(counts, 0),
    close: () => {
      closing ??= worker.terminate().then(() => undefined);
      return closing;
    },
  };
}
