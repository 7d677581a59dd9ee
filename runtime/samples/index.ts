// The tutorial samples, in the order of the sources (the chapter's path from blocking fetches
// to the full crawler, then the asyncio-vs-Node article's programs), and the entry points the
// CLI and the runtime host call: listSamples, runSample, compareApproaches, formatComparison.
//
// Invariants: sample ids are unique and stable (the CLI and the VS Code walkthrough name them);
// runSample starts its own demo site and always closes it.

import { startDemoSite } from '../demo-site/index';
import type { EventLoop } from '../loop';
import { blockingSample } from './blocking';
import { busyNonblockingSample } from './busy-nonblocking';
import { callbacksSample } from './callbacks';
import { exceptionChainSample } from './exception-chain';
import { fibLoopSample } from './fib-loop';
import { fibThreadsSample } from './fib-threads';
import { crawlerSample } from './full-crawler';
import { futureTaskSample } from './future-task';
import { gatherVsAsCompletedSample } from './gather-vs-ascompleted';
import { generatorsSample } from './generators';
import { jsonFetchSample } from './json-fetch';
import type { Sample, SampleOutcome } from './sample';
import { timersLoopSample } from './timers-loop';
import { trampolineSample } from './trampoline';

export type { Sample, SampleContext, SampleOutcome } from './sample';
export { SOURCES } from './sample';
export {
  compareApproaches,
  formatComparison,
  APPROACHES,
  EVENT_LOOP_APPROACHES,
  DEFAULT_LATENCY_MS,
  defaultProcessPoolSize,
  defaultThreadPoolSize,
  type ApproachName,
  type ComparisonRow,
  type CompareOptions,
} from './compare';

export const SAMPLES: readonly Sample[] = Object.freeze([
  generatorsSample,
  blockingSample,
  busyNonblockingSample,
  callbacksSample,
  futureTaskSample,
  crawlerSample,
  fibThreadsSample,
  fibLoopSample,
  timersLoopSample,
  trampolineSample,
  exceptionChainSample,
  gatherVsAsCompletedSample,
  jsonFetchSample,
]);

export function findSample(id: string): Sample | undefined {
  return SAMPLES.find((s) => s.id === id);
}

export interface SampleSummary {
  id: string;
  title: string;
  chapter: string;
}

/** Every sample's id, title and source, in order. */
export function listSamples(): SampleSummary[] {
  return SAMPLES.map(({ id, title, chapter }) => ({ id, title, chapter }));
}

/** The demo site runSample starts: small enough for the crawler sample to finish quickly, with some latency so waiting shows. */
export const SAMPLE_SITE = Object.freeze({ pages: 40, latencyMs: 20 });

export interface RunSampleOptions {
  /** Where the sample's lines go (default: nowhere; they are in the outcome too). */
  log?: (line: string) => void;
  /** Run the sample's coroutines on this loop (the inspector's). */
  loop?: EventLoop;
}

/** Runs one sample against a demo site of its own, started and stopped here. */
export async function runSample(id: string, options: RunSampleOptions = {}): Promise<SampleOutcome> {
  const sample = findSample(id);
  if (sample === undefined) throw new RangeError(`no sample ${JSON.stringify(id)}; the samples are: ${SAMPLES.map((s) => s.id).join(', ')}`);
  const site = await startDemoSite(SAMPLE_SITE);
  try {
    return await sample.run({ siteUrl: site.url, log: options.log ?? ((): void => undefined), loop: options.loop });
  } finally {
    await site.close();
  }
}
