// The `coroscope.*` settings as launch options. Pure: a getter gives each setting's raw value
// (`unknown`: settings.json is user input), and what is out of range or of the wrong type
// falls back to the default, so a bad setting never breaks a launch.

import { CRAWL_OPTION_BOUNDS, type CrawlOptionName } from '../protocol/crawl-option-bounds';
import type { LaunchOptions } from '../protocol/host-protocol';

export type SettingGetter = (key: string) => unknown;

export type DemoLatency = 'realistic' | 'instant';

export const DEFAULTS = Object.freeze({
  // The chapter's Crawler (max_tasks=10), not its command line (100): ten workers fit the
  // panel's table, and over the demo site's network-like latency they keep a crawl going for
  // about 15-20 s, long enough to pause it and look (100 workers finish it in about 3 s).
  maxTasks: 10,
  maxRedirect: 10,
  maxTries: 4,
  exclude: '',
  strict: true,
  respectRobotsTxt: true,
  inspection: true,
  snapshotRate: 4,
  stopOnEntry: false,
  demoPages: 0,
  demoLatency: 'realistic' as DemoLatency,
  // Every run recorded (its timeline, Step Back): cheap enough to leave on (the CLI asks for it with --record).
  record: true,
});

function int(v: unknown, min: number, max: number, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fallback;
}
/** An integer setting within its documented bounds (package.json's schema states the same). */
function bounded(v: unknown, name: CrawlOptionName, fallback: number): number {
  const { min, max } = CRAWL_OPTION_BOUNDS[name];
  return int(v, min, max, fallback);
}
function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === 'boolean' ? v : fallback;
}

/** A regular expression's source, or null when empty or invalid (with why, for a warning). */
export function excludePattern(v: unknown): { pattern: string | null; problem?: string } {
  if (typeof v !== 'string' || v.trim() === '') return { pattern: null };
  try {
    new RegExp(v);
    return { pattern: v };
  } catch (e) {
    return {
      pattern: null,
      problem: `coroscope.exclude is not a regular expression (${e instanceof Error ? e.message : String(e)}): ignored`,
    };
  }
}

export interface CrawlSettings {
  options: LaunchOptions;
  /** Pages of the embedded demo site (0: the site's default). */
  demoPages: number;
  /** How the demo site answers: with a network's latency, or at once. */
  demoLatency: DemoLatency;
  problems: string[];
}

export function crawlSettings(get: SettingGetter): CrawlSettings {
  const problems: string[] = [];
  const exclude = excludePattern(get('exclude'));
  if (exclude.problem !== undefined) problems.push(exclude.problem);
  const options: LaunchOptions = {
    maxTasks: bounded(get('maxTasks'), 'maxTasks', DEFAULTS.maxTasks),
    maxRedirect: bounded(get('maxRedirect'), 'maxRedirect', DEFAULTS.maxRedirect),
    maxTries: bounded(get('maxTries'), 'maxTries', DEFAULTS.maxTries),
    exclude: exclude.pattern,
    strict: bool(get('strict'), DEFAULTS.strict),
    robots: bool(get('respectRobotsTxt'), DEFAULTS.respectRobotsTxt),
    inspect: bool(get('inspection'), DEFAULTS.inspection),
    stopOnEntry: bool(get('stopOnEntry'), DEFAULTS.stopOnEntry),
    record: bool(get('record'), DEFAULTS.record),
  };
  const latency = get('demoLatency');
  const demoLatency: DemoLatency = latency === 'realistic' || latency === 'instant' ? latency : DEFAULTS.demoLatency;
  return { options, demoPages: int(get('demoPages'), 0, 100_000, DEFAULTS.demoPages), demoLatency, problems };
}

/** Launch options for a sample: only inspection and stop-on-entry apply. */
export function sampleOptions(get: SettingGetter): LaunchOptions {
  return {
    inspect: bool(get('inspection'), DEFAULTS.inspection),
    stopOnEntry: bool(get('stopOnEntry'), DEFAULTS.stopOnEntry),
    record: bool(get('record'), DEFAULTS.record),
  };
}

/** Snapshots per second (0.5 .. 30). */
export function snapshotRate(get: SettingGetter): number {
  const v = get('snapshotRate');
  return typeof v === 'number' && Number.isFinite(v) && v >= 0.5 && v <= 30 ? v : DEFAULTS.snapshotRate;
}

/**
 * Parses what the user typed in the Run Crawl input: URLs separated by spaces or commas.
 * Empty input (or the demo choice) means the demo site. Returns the URLs or why not.
 */
export function parseCrawlInput(text: string): { demo: true } | { demo: false; urls: string[] } | { error: string } {
  const parts = text
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0 || (parts.length === 1 && parts[0]!.toLowerCase() === 'demo')) return { demo: true };
  const urls: string[] = [];
  for (const p of parts) {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(p) ? p : `http://${p}`;
    let u: URL;
    try {
      u = new URL(withScheme);
    } catch {
      return { error: `Not a URL: ${p}` };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return { error: `Only http and https URLs can be crawled: ${p}` };
    urls.push(u.href);
  }
  return { demo: false, urls };
}
