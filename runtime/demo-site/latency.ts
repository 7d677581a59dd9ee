// How the embedded demo site answers when a person crawls it. `realistic` behaves like the
// web the chapter's crawler was written for: every response comes tens to hundreds of
// milliseconds late (a fixed part and a seeded pseudo-random part), and content pages are the
// size of real pages, so a crawl lasts long enough to pause it and look at its tasks, most of
// them suspended on their sockets. `instant` answers at once with small pages: for benchmarks
// and tests that need speed.
//
// Invariant: the latency changes when responses come and how big pages are, never what the
// site holds: the same URLs, links, statuses and errors, so a crawl's report ends in the same
// counts either way.

import { isDemoLatency, type DemoLatency } from '../../protocol/host-protocol';
import type { DemoSiteOptions } from './server';

export { isDemoLatency, type DemoLatency };

export const DEMO_LATENCIES: readonly DemoLatency[] = Object.freeze(['realistic', 'instant']);

/** The default for a person's crawl (the CLI's `crawl --demo`, the extension, the debugger). */
export const DEFAULT_DEMO_LATENCY: DemoLatency = 'realistic';

/** What `realistic` adds to the site: 100 to 800 ms per response (450 on average), pages of 24 KiB. */
export const REALISTIC_TRANSPORT = Object.freeze({ latencyMs: 100, jitterMs: 700, pageBytes: 24 * 1024 });

/** The demo site's options for `latency` (and `pages` when given). */
export function demoSiteOptions(latency: DemoLatency, pages?: number): DemoSiteOptions {
  const base: DemoSiteOptions = latency === 'realistic' ? { ...REALISTIC_TRANSPORT } : {};
  return pages === undefined ? base : { ...base, pages };
}
