// Public face of the embedded demo website: the server, its model and the names the crawler,
// the CLI and the tests use to compare a crawl with what the site holds.
//
// Invariant: only names re-exported here are public; pages.ts and faults.ts internals (other
// than the renderers, for tools that want a page's bytes without a server) stay private.

export { startDemoSite, DEFAULT_SLOW_MS, type DemoSite, type DemoSiteOptions } from './server';
export { describeDemoSite } from './description';
export {
  DEMO_LATENCIES,
  DEFAULT_DEMO_LATENCY,
  REALISTIC_TRANSPORT,
  demoSiteOptions,
  isDemoLatency,
  type DemoLatency,
} from './latency';
export {
  SiteModel,
  DeterministicRandom,
  DEFAULT_SITE_OPTIONS,
  HTML_CONTENT_TYPE,
  BROKEN_CHARSET,
  BROKEN_CONTENT_TYPE,
  BINARY_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  BINARY_BYTES,
  HOME_PAGE_LINKS,
  SLOW_PAGE_COUNT,
  SECTIONS_PER_PAGE,
  MARKUP_TITLE_TEXT,
  EXTERNAL_URLS,
  SITE_PATHS,
  FAULT_NAMES,
  FAULT_BEHAVIOUR,
  REDIRECT_LOOP_B_PATH,
  contentPagePath,
  slowPagePath,
  faultPath,
  type SiteModelOptions,
  type ResolvedSiteModelOptions,
  type SiteRoute,
  type LinkKind,
  type PageLink,
  type ExpectedOutcome,
  type FaultName,
  type StreamFault,
} from './site-model';
export { FAULT_DECLARED_LENGTH, ENDLESS_CHUNK_BYTES } from './faults';
export {
  escapeHtml,
  renderHomePage,
  renderContentPage,
  renderSlowPage,
  renderBrokenPage,
  renderMarkupTitlePage,
  renderPrivatePage,
  renderNotFoundPage,
  renderRedirectPage,
  renderRobotsTxt,
  renderPagesJson,
  renderBinaryData,
} from './pages';
