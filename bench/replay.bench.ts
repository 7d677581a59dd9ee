// Scrubbing a recorded crawl in the runtime host (`npm run bench:replay [-- --pages N
// --seeks N --max-tasks N]`): a recorded demo crawl of N pages (default 2000, the instant
// site), saved, then opened as a recording (its site gone); seeks to ticks in a seeded random
// order, each timed to a task table (seekTick + snapshot) and a worker's stack (taskDetail
// without locals), then that worker's locals (taskDetail with locals). Prints the medians, the
// 90th percentiles and the worst, and the recording's bytes per task step.
//
// The host is the bundle (dist/runtime-host.js), as the extension runs it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../protocol/host-protocol';
import { forkHost, median, ROOT } from '../test/runtime/host/host-client';

interface Args {
  pages: number;
  seeks: number;
  maxTasks: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { pages: 2000, seeks: 40, maxTasks: 10 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const n = Number(argv[i + 1]);
    if (v === '--pages') a.pages = n;
    else if (v === '--seeks') a.seeks = n;
    else if (v === '--max-tasks') a.maxTasks = n;
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

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-replay-bench-'));
  const host = forkHost({ bundle: join(ROOT, 'dist', 'runtime-host.js') });
  try {
    await host.rpc.request('hello', { client: 'bench', protocolVersion: PROTOCOL_VERSION });
    const t0 = performance.now();
    const launched = await host.rpc.request('launch', { target: { kind: 'demo', pages: args.pages, latency: 'instant' }, options: { record: true, maxTasks: args.maxTasks } });
    await host.waitFor('finished', (f) => f.runId === launched.runId, 600_000);
    const crawlSeconds = (performance.now() - t0) / 1000;
    const file = join(dir, 'crawl.corotrace');
    const saved = await host.rpc.request('saveRecording', { path: file });
    const t1 = performance.now();
    const opened = await host.rpc.request('openRecording', { path: file });
    const openMs = performance.now() - t1;
    const done = (await host.rpc.request('snapshot', {})).progress?.done ?? 0;
    console.log(`recorded crawl: ${done} URLs in ${crawlSeconds.toFixed(1)} s; ${saved.ticks} ticks, ${saved.steps} task steps, ${saved.bytes} bytes: ${(saved.bytes / saved.steps).toFixed(1)} bytes per step`);
    console.log(`openRecording (its site gone), shown at its last tick: ${openMs.toFixed(0)} ms`);

    const random = seeded(15);
    const table: number[] = [];
    const locals: number[] = [];
    let withWorker = 0;
    for (let i = 0; i < args.seeks; i++) {
      const tick = 1 + Math.floor(random() * opened.ticks);
      const a = performance.now();
      await host.rpc.request('seekTick', { tick });
      const snap = await host.rpc.request('snapshot', {});
      const worker = snap.tasks.find((t) => t.name.startsWith('worker-') && t.state === 'suspended');
      if (worker !== undefined) await host.rpc.request('taskDetail', { taskId: worker.id, locals: false });
      const b = performance.now();
      table.push(b - a);
      if (worker !== undefined) {
        withWorker++;
        await host.rpc.request('taskDetail', { taskId: worker.id, locals: true });
        locals.push(performance.now() - a);
      }
    }
    const line = (what: string, xs: number[], bound: number): void => {
      console.log(`${what.padEnd(46)} median ${median(xs).toFixed(0).padStart(5)} ms   p90 ${quantile(xs, 0.9).toFixed(0).padStart(5)} ms   worst ${Math.max(...xs).toFixed(0).padStart(5)} ms   (bound ${bound} ms)`);
    };
    console.log(`${args.seeks} seeks to random ticks of ${opened.ticks} (${withWorker} with a suspended worker):`);
    line('seek + task table + a worker\'s stack', table, 300);
    line('seek + ... + that worker\'s locals', locals, 1000);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
