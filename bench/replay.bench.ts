// Scrubbing a recorded crawl in the runtime host (`npm run bench:replay [-- --pages N
// --seeks N --max-tasks N --live-max-tasks N --rounds N --latency instant|realistic --busy N --bundle
// FILE]`): a recorded demo crawl
// of N pages (default 2000, the instant site), saved, then opened as a recording (its site
// gone); --seeks seeks, one tick drawn in each of as many equal stretches of the run (the whole
// recording covered) and taken in a seeded shuffled order, each timed to a task table
// (seekTick + snapshot) and a worker's stack (taskDetail without locals: function names, from
// the recording's log, no replay), then to that stack with positions (once the replay to the
// tick has landed: its viewedTick), then that worker's locals (taskDetail with locals): right
// after opening it (the checkpoints being built as the
// seeks go), then the same ticks again reshuffled (the checkpoints left). Prints the medians,
// the 90th percentiles, the worst and which seeks were slowest, and the recording's bytes per
// task step. Then --rounds scrubs back: the recording opened again (shown at its last tick, the
// replay there under way) and at once a seek to a tick in its first tenth, timed to a worker's
// locals, beside the replay to the last tick alone in the same round (a seek back must not wait
// for the replay forward: run-rewind.ts).
// Then the first seeks right after a live recorded crawl ends (the checkpoints are those
// built while it ran, in its idle time): in each of --rounds rounds a new crawl (of
// --live-max-tasks tasks: with `--latency realistic` and 100 tasks a 2,000-page crawl lasts
// about 15 s, long enough for its rate to be measured), then FIRST_SEEKS seeks at once, one in
// each FIRST_SEEKS-th of the run; the medians over the rounds of the first seek and of the
// worst, and the median, p90 and worst of them all.
// Each round also crawls the same site unrecorded (alternating which goes first), so the live
// crawl's rate with recording on (the recorder, and checkpoints built as it runs) is given
// against recording off in the same run: the median of the rounds' ratios.
// `--busy N` runs N busy loops (`node -e 'for(;;){}'`) beside the whole bench, to see the
// figures on a loaded machine; they are killed at the end. `--bundle FILE`: another build of
// the host (an earlier one, to compare).
//
// The host is the bundle (dist/runtime-host.js), as the extension runs it.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, isDemoLatency, type DemoLatency } from '../protocol/host-protocol';
import { forkHost, median, ROOT, type HostClient } from '../test/runtime/host/host-client';

interface Args {
  pages: number;
  seeks: number;
  maxTasks: number;
  /** Tasks of the live crawls (their rate on/off and first seeks); default maxTasks. */
  liveMaxTasks: number | null;
  rounds: number;
  latency: DemoLatency;
  busy: number;
  bundle: string;
}

/** Seeks timed in each round right after a live crawl ends. */
const FIRST_SEEKS = 5;

function parseArgs(argv: readonly string[]): Args {
  const a: Args = {
    pages: 2000,
    seeks: 40,
    maxTasks: 10,
    liveMaxTasks: null,
    rounds: 5,
    latency: 'instant',
    busy: 0,
    bundle: join(ROOT, 'dist', 'runtime-host.js'),
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const n = Number(argv[i + 1]);
    if (v === '--pages') a.pages = n;
    else if (v === '--seeks') a.seeks = n;
    else if (v === '--max-tasks') a.maxTasks = n;
    else if (v === '--live-max-tasks') a.liveMaxTasks = n;
    else if (v === '--rounds') a.rounds = n;
    else if (v === '--latency' && isDemoLatency(argv[i + 1])) a.latency = argv[i + 1] as DemoLatency;
    else if (v === '--busy') a.busy = n;
    else if (v === '--bundle') a.bundle = argv[i + 1]!;
    else throw new Error(`unknown argument ${v}`);
    i++;
  }
  return a;
}

/** A small seeded generator (the same ticks every run). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One tick drawn in each of `n` equal stretches of 1..ticks, in a shuffled order. */
function spreadTicks(ticks: number, n: number, random: () => number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(Math.min(ticks, 1 + Math.floor(((i + random()) * ticks) / n)));
  return shuffled(out, random);
}

function shuffled<T>(xs: readonly T[], random: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** What one seek is timed to (ms from the seek asked). */
interface SeekTimes {
  /**
   * The task table and a suspended worker's stack by function names: from the recording's log (what the views
   * show at once).
   */
  table: number;
  /** That stack with its frames' positions: once the replay to the tick has landed (the viewedTick that says so). */
  positions: number;
  /** That worker's locals (taskDetail with locals). */
  locals: number;
}

/**
 * One seek, timed to the task table and a suspended worker's stack, to that stack with positions, then to
 * that worker's locals (no suspended worker there: all three are the table's).
 */
async function timeSeek(host: HostClient, tick: number): Promise<SeekTimes> {
  const from = host.events.length;
  const a = performance.now();
  const moment = await host.rpc.request('seekTick', { tick });
  const snap = await host.rpc.request('snapshot', {});
  const worker = snap.tasks.find((t) => t.name.startsWith('worker-') && t.state === 'suspended');
  if (worker !== undefined) {
    const d = await host.rpc.request('taskDetail', { taskId: worker.id, locals: false });
    if (d.frames.length === 0) throw new Error(`tick ${tick}: worker #${worker.id} has no stack`);
  }
  const table = performance.now() - a;
  if (moment.replayed === false)
    await host.waitFor(
      'viewedTick',
      (v) => v.tick === tick && (v.replayed === true || v.replayError !== undefined),
      120_000,
      from,
    );
  if (worker === undefined) {
    const landed = performance.now() - a;
    return { table, positions: landed, locals: landed };
  }
  const d = await host.rpc.request('taskDetail', { taskId: worker.id, locals: false });
  if (d.fromLog === true || d.frames.some((f) => f.position === null))
    throw new Error(`tick ${tick}: worker #${worker.id}'s stack has no positions after the replay landed`);
  const positions = performance.now() - a;
  await host.rpc.request('taskDetail', { taskId: worker.id, locals: true });
  return { table, positions, locals: performance.now() - a };
}

/** A live demo crawl in the host, to its end: its URLs per second (from the launch to the finished event). */
async function liveCrawl(host: HostClient, args: Args, record: boolean): Promise<{ rate: number; ticks: number }> {
  const from = host.events.length;
  const t0 = performance.now();
  const live = await host.rpc.request('launch', {
    target: { kind: 'demo', pages: args.pages, latency: args.latency },
    options: { record, maxTasks: args.liveMaxTasks ?? args.maxTasks },
  });
  await host.waitFor('finished', (f) => f.runId === live.runId, 1_800_000, from);
  const seconds = (performance.now() - t0) / 1000;
  const done = (await host.rpc.request('snapshot', {})).progress?.done ?? 0;
  const ticks = record ? (await host.rpc.request('seekTick', { tick: null })).ticks : 0;
  return { rate: done / seconds, ticks };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const busy: ChildProcess[] = [];
  for (let i = 0; i < args.busy; i++) busy.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    await bench(args);
  } finally {
    for (const b of busy) b.kill();
  }
}

async function bench(args: Args): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-bench-'));
  const host = forkHost({ bundle: args.bundle });
  try {
    await host.rpc.request('hello', { client: 'bench', protocolVersion: PROTOCOL_VERSION });
    const t0 = performance.now();
    const launched = await host.rpc.request('launch', {
      target: { kind: 'demo', pages: args.pages, latency: 'instant' },
      options: { record: true, maxTasks: args.maxTasks },
    });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 600_000);
    const crawlSeconds = (performance.now() - t0) / 1000;
    const file = join(dir, 'crawl.corotrace');
    const saved = await host.rpc.request('saveRecording', { path: file });
    const t1 = performance.now();
    const openedFrom = host.events.length;
    const opened = await host.rpc.request('openRecording', { path: file });
    const openMs = performance.now() - t1;
    // The crawl's progress comes with the replay of the tick shown (the log's table has none).
    await host.waitFor(
      'viewedTick',
      (v) => v.runId === opened.runId && (v.replayed === true || v.replayError !== undefined),
      120_000,
      openedFrom,
    );
    const done = (await host.rpc.request('snapshot', {})).progress?.done ?? 0;
    console.log(
      `recorded crawl: ${done} URLs in ${crawlSeconds.toFixed(1)} s; ${saved.ticks} ticks, ${saved.steps} task steps, ${saved.bytes} bytes: ${(saved.bytes / saved.steps).toFixed(1)} bytes per step`,
    );
    console.log(`openRecording (its site gone), shown at its last tick: ${openMs.toFixed(0)} ms`);

    const random = seeded(15);
    const line = (what: string, xs: number[], bound: number): void => {
      console.log(
        `${what.padEnd(46)} median ${median(xs).toFixed(0).padStart(5)} ms   p90 ${quantile(xs, 0.9).toFixed(0).padStart(5)} ms   worst ${Math.max(
          ...xs,
        )
          .toFixed(0)
          .padStart(5)} ms   (bound ${bound} ms)`,
      );
    };
    // One tick in each of `seeks` equal stretches of the run (the whole recording covered), in a shuffled order.
    const ticks = spreadTicks(opened.ticks, args.seeks, random);
    for (const pass of ['first', 'second']) {
      const table: number[] = [];
      const positions: number[] = [];
      const locals: number[] = [];
      for (const tick of pass === 'first' ? ticks : shuffled(ticks, random)) {
        const t = await timeSeek(host, tick);
        table.push(t.table);
        positions.push(t.positions);
        locals.push(t.locals);
      }
      const slowest = table
        .map((ms, i) => ({ ms, i }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 3);
      console.log(
        `${pass} pass: ${args.seeks} seeks, one in each ${args.seeks}th of its ${opened.ticks} ticks, shuffled${pass === 'first' ? ' (right after opening it)' : ' again (the checkpoints the first pass left)'}; slowest: ${slowest.map((s) => `#${s.i + 1} ${s.ms.toFixed(0)} ms`).join(', ')}`,
      );
      line("seek + task table + a worker's stack (names, log)", table, 300);
      line('seek + ... + that stack with positions (replayed)', positions, 1000);
      line("seek + ... + that worker's locals", locals, 1000);
    }

    // Scrubbing back while a replay goes forward: the recording opened again (shown at its last
    // tick, the replay there under way) and at once a seek to a tick in its first tenth, timed to
    // that worker's locals; beside it, in the same round, the replay to the last tick alone (from
    // the open asked to its landing).
    const back: number[] = [];
    const forward: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      const f0 = performance.now();
      const from = host.events.length;
      const shown = await host.rpc.request('openRecording', { path: file });
      await host.waitFor(
        'viewedTick',
        (v) =>
          v.runId === shown.runId && v.tick === shown.ticks && (v.replayed === true || v.replayError !== undefined),
        120_000,
        from,
      );
      forward.push(performance.now() - f0);
      await host.rpc.request('openRecording', { path: file });
      back.push((await timeSeek(host, 1 + Math.floor(random() * Math.floor(opened.ticks / 10)))).locals);
    }
    console.log(
      `scrub back right after opening it (its last tick's replay under way): a seek to a tick in its first tenth + a worker's locals median ${median(back).toFixed(0)} ms (rounds ${back.map((x) => x.toFixed(0)).join(' ')}), the replay to its last tick alone ${median(forward).toFixed(0)} ms: ratio ${(median(back) / median(forward)).toFixed(2)}`,
    );

    // Right after a live crawl ends.
    const first: { table: number[]; positions: number[]; locals: number[] } = { table: [], positions: [], locals: [] };
    const worst: { table: number[]; positions: number[]; locals: number[] } = { table: [], positions: [], locals: [] };
    const all: { table: number[]; positions: number[]; locals: number[] } = { table: [], positions: [], locals: [] };
    const rateRatios: number[] = [];
    const rates: { on: number[]; off: number[] } = { on: [], off: [] };
    let ticksSeen = 0;
    for (let r = 0; r < args.rounds; r++) {
      // Unrecorded first in even rounds, after the seeks in odd ones.
      const off = r % 2 === 0 ? await liveCrawl(host, args, false) : null;
      const on = await liveCrawl(host, args, true);
      const ticks = on.ticks;
      ticksSeen = ticks;
      const times = [];
      for (const tick of spreadTicks(ticks, FIRST_SEEKS, random)) times.push(await timeSeek(host, tick));
      for (const k of ['table', 'positions', 'locals'] as const) {
        for (const t of times) all[k].push(t[k]);
        first[k].push(times[0]![k]);
        worst[k].push(Math.max(...times.map((t) => t[k])));
      }
      const offRate = (off ?? (await liveCrawl(host, args, false))).rate;
      rates.on.push(on.rate);
      rates.off.push(offRate);
      rateRatios.push(on.rate / offRate);
    }
    const roundsLine = (what: string, xs: number[], bound: number): void => {
      console.log(
        `${what.padEnd(58)} median ${median(xs).toFixed(0).padStart(5)} ms   rounds ${xs.map((x) => x.toFixed(0)).join(' ')}   (bound ${bound} ms)`,
      );
    };
    console.log(
      `right after a live recorded crawl of ${args.pages} pages (${args.latency} site, ${ticksSeen} ticks) ends: ${FIRST_SEEKS} seeks at once, one in each ${FIRST_SEEKS}th of the run, ${args.rounds} rounds:`,
    );
    roundsLine("first seek: + task table + a worker's stack (names, log)", first.table, 300);
    roundsLine('first seek: + that stack with positions (replayed)', first.positions, 1000);
    roundsLine("first seek: + that worker's locals", first.locals, 1000);
    roundsLine(`worst of the ${FIRST_SEEKS}: + task table + a worker's stack (names)`, worst.table, 300);
    roundsLine(`worst of the ${FIRST_SEEKS}: + that stack with positions`, worst.positions, 1000);
    roundsLine(`worst of the ${FIRST_SEEKS}: + that worker's locals`, worst.locals, 1000);
    line(`all ${all.table.length}: + table + stack (names, log)`, all.table, 300);
    line(`all ${all.table.length}: + stack with positions`, all.positions, 1000);
    line(`all ${all.table.length}: + that worker's locals`, all.locals, 1000);
    console.log(
      `live crawl rate, recording on / off: median of the rounds' ratios ${median(rateRatios).toFixed(2)} (rounds ${rateRatios.map((x) => x.toFixed(2)).join(' ')}; on ${median(rates.on).toFixed(0)} urls/s, off ${median(rates.off).toFixed(0)} urls/s; bound 0.8)${args.busy > 0 ? `, ${args.busy} busy loop(s) beside it` : ''}`,
    );
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
