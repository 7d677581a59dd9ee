// Fetching a list of pages with the full runtime, all at once: one Task per page on an
// EventLoop, each `yield* session.get(url)` on a keep-alive ClientSession with no connection
// limit, then `yield* response.read()`; `gather` waits for them all, results in page order.
//
// The request differs from the other approaches' in one way only: HTTP/1.1 with keep-alive,
// the runtime client's protocol (each task still opens its own connection, since they all
// start at once and none is idle to be reused).

import { coroutine } from '../coroutine';
import { gather } from '../gather';
import { ClientSession } from '../http/index';
import { getRunningLoop } from '../running-loop';
import type { Coroutine } from '../task';
import { failureOf, type Origin, type PageResult } from './page-fetch';

export const fetchOnePage = coroutine(function* fetchOnePage(session: ClientSession, origin: Origin, path: string): Coroutine<PageResult> {
  try {
    const response = yield* session.get(`http://${origin.host}:${origin.port}${path}`, { allowRedirects: false });
    const body = yield* response.read();
    return { path, status: response.status, bytes: body.length };
  } catch (error) {
    return failureOf(path, error);
  }
});

/** A coroutine: fetches every path at once, one task each. */
export const fetchPagesWithRuntime = coroutine(function* fetchPagesWithRuntime(origin: Origin, paths: readonly string[]): Coroutine<PageResult[]> {
  const loop = getRunningLoop();
  const session = new ClientSession({ limit: 0 });
  try {
    const tasks = paths.map((path, i) => loop.createTask(fetchOnePage(session, origin, path), { name: `fetch-${i + 1}` }));
    return yield* gather(...tasks);
  } finally {
    session.close();
  }
});
