// Reading a live recording for checkpoints (`npm run bench:checkpoint-reading [-- --pages N
// --latency MS]`): a crawl of the demo site (pages of 24 KiB, MS ms per response plus up to
// twice that in jitter) recorded, with checkpoints built as it runs (RunRewind.follow, as the
// host does for a recorded crawl). Each time a checkpoint reads the recording, the reading is
// timed two ways at that moment: incrementally, as RunRewind reads it (RunLogReader over the
// recorder's views: only what was added since the last reading), and whole, as it read it
// before (a copy of every stream so far, every record decoded again), so the second grows
// with the recording and the first with what is new.

import { EventLoop } from '../runtime/loop';
import { Crawler } from '../runtime/crawler/crawler';
import { RunRecorder } from '../runtime/record/run-recorder';
import { RunRewind } from '../runtime/host/main-thread/run-rewind';
import { RunLogReader, readRunLog } from '../runtime/record/run-log';
import { startDemoSite } from '../runtime/demo-site/index';
import { REALISTIC_TRANSPORT } from '../runtime/demo-site/latency';

function parseArgs(argv: readonly string[]): { pages: number; latency: number } {
  const a = { pages: 2000, latency: 5 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const n = Number(argv[++i]);
    if (v === '--pages') a.pages = n;
    else if (v === '--latency') a.latency = n;
    else throw new Error(`unknown argument ${v}`);
  }
  return a;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const site = await startDemoSite({
    pages: args.pages,
    pageBytes: REALISTIC_TRANSPORT.pageBytes,
    latencyMs: args.latency,
    jitterMs: 2 * args.latency,
  });
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  let live = true;
  const reader = new RunLogReader('incremental');
  const readings: Array<{ bytes: number; ticks: number; incrementalMs: number; wholeMs: number }> = [];
  const crawlOn = (l: EventLoop): { crawler: Crawler; run: () => Promise<unknown> } => {
    const crawler = new Crawler([site.url], { maxTasks: 10, robots: false });
    return { crawler, run: () => l.runUntilComplete(crawler.crawl()) };
  };
  const rewind = new RunRewind({
    runId: 1,
    what: 'the bench crawl',
    frames: false,
    debug: false,
    recording: () => {
      const t0 = performance.now();
      reader.read(rec.soFar());
      const incrementalMs = performance.now() - t0;
      const t1 = performance.now();
      const whole = rec.streamsSoFar();
      readRunLog(whole.events, whole.gaps, whole.payload, 'whole');
      const wholeMs = performance.now() - t1;
      readings.push({
        bytes: whole.events.length + whole.gaps.length + whole.payload.length,
        ticks: whole.ticks,
        incrementalMs,
        wholeMs,
      });
      return rec.soFar();
    },
    ticks: () => rec.ticks,
    live: () => (live ? { busy: loop.readyCount() > 0 } : null),
    program: { start: crawlOn },
    lints: () => [],
  });
  rewind.follow();
  const t0 = performance.now();
  const { crawler, run } = crawlOn(loop);
  try {
    await run();
  } finally {
    live = false;
    rewind.close();
    rec.finish();
    loop.close();
    await site.close();
  }
  const sum = (f: (r: (typeof readings)[number]) => number): number => readings.reduce((a, r) => a + f(r), 0);
  console.log(
    `recorded crawl of the demo site (${args.pages} pages of ${REALISTIC_TRANSPORT.pageBytes} bytes, ${args.latency}-${3 * args.latency} ms a response): ${crawler.done.length} URLs in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${rec.ticks} ticks; the checkpoints read the recording ${readings.length} times:`,
  );
  console.log('  recording so far      ticks   incremental   whole (copied, decoded again)');
  for (const r of readings)
    console.log(
      `  ${(r.bytes / 1e6).toFixed(1).padStart(8)} MB   ${String(r.ticks).padStart(10)}   ${r.incrementalMs.toFixed(1).padStart(8)} ms   ${r.wholeMs.toFixed(1).padStart(8)} ms`,
    );
  console.log(
    `  total                            ${sum((r) => r.incrementalMs)
      .toFixed(0)
      .padStart(8)} ms   ${sum((r) => r.wholeMs)
      .toFixed(0)
      .padStart(8)} ms`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
