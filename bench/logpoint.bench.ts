// Logpoints in the past (issue 28): every hit of a logpoint over a recorded run, on the bundled
// runtime host (dist/runtime-host.js) started as the extension starts it (client pipe: its line
// debugger's worker, a line replay host for the past).
// 1. A `pages`-page instant demo crawl (5 workers) recorded and saved; a host opens the
//    recording (as "Open Recording…" does) and a logpoint on fetch's line after the page is
//    parsed, printing `{url}`, is listed whole (pastLogpointHits): the first list (the replay
//    host forked and the recording opened there on the way) and the next ones (the same logpoint
//    listed again, then another message on the same line), to the full list (target ≤ 2 s;
//    medians of rounds). Each list's length is checked against the pages the crawl fetched.
// 2. That a logpoint costs nothing when none is set is the crawl benchmark's on/off rate ratio
//    (npm run bench:crawl -- --record): the recorder's path has no logpoint code.
// Usage: npm run bench:logpoint [-- pages rounds] (default 2000 5). COROSCOPE_HOST_BUNDLE: another
// host bundle to run.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forkHost, median, ROOT } from '../test/runtime/host/host-client';
import { lineOf } from '../test/source-line';

const BUNDLE = process.env.COROSCOPE_HOST_BUNDLE ?? join(ROOT, 'dist', 'runtime-host.js');
const CRAWLER = join(ROOT, 'runtime', 'crawler', 'crawler.ts');
const PARSED = lineOf(CRAWLER, 'const { stat, links } = parsed;');

const pages = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-logpoint-bench-'));
  const file = join(dir, 'crawl.corotrace');
  try {
    const recorder = forkHost({ bundle: BUNDLE, pipe: true });
    await recorder.rpc.request('launch', {
      target: { kind: 'demo', pages, latency: 'instant' },
      options: { maxTasks: 5, record: true },
    });
    await recorder.waitFor('finished', () => true, 600_000);
    const ticks = (await recorder.rpc.request('timeline', {})).ticks;
    await recorder.rpc.request('saveRecording', { path: file });
    await recorder.close();
    console.log(`a ${pages}-page instant demo crawl (5 workers) recorded: ${ticks} ticks`);
    const first: number[] = [];
    const next: number[] = [];
    const other: number[] = [];
    let hits = 0;
    for (let round = 0; round < rounds; round++) {
      const host = forkHost({ bundle: BUNDLE, pipe: true });
      try {
        await host.rpc.request('openRecording', { path: file });
        const list = async (logMessage: string): Promise<number> => {
          const t0 = performance.now();
          const r = await host.rpc.request('pastLogpointHits', {
            logpoints: [{ file: CRAWLER, line: PARSED, logMessage }],
          });
          const ms = performance.now() - t0;
          if (r.hits.length < pages) throw new Error(`${r.hits.length} hits for ${pages} pages`);
          hits = r.hits.length;
          return ms;
        };
        first.push(await list('{url}'));
        next.push(await list('{url}'));
        other.push(await list('{url} at depth {depth}'));
      } finally {
        await host.close();
      }
      console.log(
        `round ${round + 1}: first ${first[round]!.toFixed(0)} ms, again ${next[round]!.toFixed(0)} ms, another message ${other[round]!.toFixed(0)} ms`,
      );
    }
    console.log(
      `every hit of a logpoint in fetch (${hits} hits, ${ticks} ticks), to the full list: first ${median(first).toFixed(0)} ms, next ${median(next).toFixed(0)} ms, another message ${median(other).toFixed(0)} ms (medians of ${rounds}; target ≤ 2000 ms)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
