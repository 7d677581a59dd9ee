// The one-line description of a running demo site that the CLI prints before a crawl: what a
// crawl from its home page will meet, counted from the site's own model (expectedOutcomes), so
// that the announcement and the crawl's report agree (the report's "Finished N urls" is the
// URLs counted here, less those robots.txt disallows), and how fast it answers.

import type { DemoLatency } from './latency';
import { REALISTIC_TRANSPORT } from './latency';
import type { DemoSite } from './server';
import type { ExpectedOutcome } from './site-model';

const KIND_WORDS: Record<ExpectedOutcome['kind'], [string, string]> = {
  page: ['HTML page', 'HTML pages'],
  redirect: ['redirect', 'redirects'],
  missing: ['missing page (404)', 'missing pages (404)'],
  binary: ['binary file', 'binary files'],
  broken: ['page in an unknown charset', 'pages in an unknown charset'],
  fault: ['broken response', 'broken responses'],
  'excluded-by-robots': ['disallowed by robots.txt', 'disallowed by robots.txt'],
};

/** "200 content pages; a crawl from / meets 372 URLs: ...; each response 100-800 ms late". */
export function describeDemoSite(site: DemoSite, latency: DemoLatency): string {
  const outcomes = site.model.expectedOutcomes(site.url);
  const counts = new Map<ExpectedOutcome['kind'], number>();
  for (const o of outcomes.values()) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  const robots = counts.get('excluded-by-robots') ?? 0;
  const parts = [...counts]
    .filter(([kind]) => kind !== 'excluded-by-robots')
    .map(([kind, n]) => `${n} ${KIND_WORDS[kind][n === 1 ? 0 : 1]}`);
  const crawled = outcomes.size - robots;
  const skipped = robots > 0 ? `, and ${robots} more ${KIND_WORDS['excluded-by-robots'][0]}` : '';
  const speed =
    latency === 'instant'
      ? 'answering at once (--instant)'
      : `each response ${REALISTIC_TRANSPORT.latencyMs}-${REALISTIC_TRANSPORT.latencyMs + REALISTIC_TRANSPORT.jitterMs} ms late, as over a network (--instant: at once)`;
  const pages = site.model.options.pages;
  return `${pages} content page${pages === 1 ? '' : 's'}; a crawl from / meets ${crawled} URLs (${parts.join(', ')})${skipped}; ${speed}`;
}
