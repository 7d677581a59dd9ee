// Oracle: at a finished run's past hit (no line stop holds the run: the search's replay host shows it), every
// query a view asks of the moment answers for that moment, as the live run answered at the same stop. The
// live run of gather-vs-ascompleted stops on URL2's `done` line (tick 4) and its answers are kept; the run
// finishes; the first hit is gone to (pastBreakpointHit forward from tick 0) and the same queries are asked.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HostEvents, HostMethods, Snapshot } from '../../../protocol/host-protocol';
import type { HostEndpoint } from '../../../extension/host-client/host-process';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { lineOf } from '../../source-line';
import { until } from '../wait-until';
import { distBundle } from '../../dist-bundles';

const HOST = distBundle('runtime-host.js');
const FILE = join(__dirname, '..', '..', '..', 'runtime', 'samples', 'gather-vs-ascompleted.ts');
const DONE = lineOf(FILE, 't.log(`  done: ${url} took');
const CRAWLER = join(__dirname, '..', '..', '..', 'runtime', 'crawler', 'crawler.ts');
const DECL = lineOf(CRAWLER, 'let response: ClientResponse | null = null;');

/** What the views read of a moment: the tick, each task's state and awaited, the stopped task's top line. */
async function momentOf(ep: HostEndpoint, taskId: number): Promise<unknown> {
  const snap: Snapshot = await ep.request('snapshot', {});
  const detail = await ep.request('taskDetail', { taskId });
  const graph: HostMethods['graph']['result'] = await ep.request('graph', {});
  const lints = await ep.request('lints', {});
  return {
    tick: snap.tick,
    fromLog: snap.fromLog ?? false,
    tasks: snap.tasks.map((t) => [t.id, t.name, t.state]).sort((a, b) => Number(a[0]) - Number(b[0])),
    counts: snap.counts,
    progress: snap.progress,
    top: detail.frames[0]?.position?.line ?? null,
    frames: detail.frames.length,
    graph: graph.nodes.length,
    lints: lints.lints.map((l) => l.kind),
  };
}

describe("a finished run's past hit answers the moment's queries for that moment", { timeout: 120_000 }, () => {
  let runs: RunRegistry;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
  });
  after(async () => {
    await runs.dispose();
  });

  it('equal to what the live run answered at the same stop', async () => {
    const run = await runs.start();
    const detach = run.attach('debugger');
    try {
      const ep = run.endpoint;
      let stop: HostEvents['paused'] | null = null;
      const offPause = ep.on('paused', (b) => {
        if (b.line !== undefined) stop = b;
      });
      await run.launch(
        { kind: 'sample', id: 'gather-vs-ascompleted' },
        { stopOnEntry: true, record: true },
        'debugger',
      );
      await ep.request('setBreakpoints', { file: FILE, breakpoints: [{ file: FILE, line: DONE }] });
      await ep.request('continue', {});
      await until('the live stop on `done`', () => stop, 30_000);
      const liveStop: HostEvents['paused'] = stop!;
      offPause();
      const live = await momentOf(ep, liveStop.taskId!);
      // On to the end: the breakpoint off, the run finishes.
      await ep.request('setBreakpoints', { file: FILE, breakpoints: [] });
      await ep.request('continue', {});
      await until('the run finished', () => run.phase === 'finished', 30_000);
      await ep.request('setBreakpoints', { file: FILE, breakpoints: [{ file: FILE, line: DONE }] });
      const hit = await ep.request('pastBreakpointHit', { direction: 'forward', tick: 0 });
      assert.equal(hit.landed, 'line', JSON.stringify(hit));
      assert.deepEqual([hit.landed === 'line' ? hit.tick : -1], [liveStop.tick]);
      const past = await momentOf(ep, liveStop.taskId!);
      assert.deepEqual(past, live, 'the past hit answers as the live stop did');
    } finally {
      detach();
    }
  });

  it('a crawl: equal to what the live run answered at the same stop', async () => {
    const run = await runs.start();
    const detach = run.attach('debugger');
    try {
      const ep = run.endpoint;
      let stop: HostEvents['paused'] | null = null;
      const offPause = ep.on('paused', (b) => {
        if (b.line !== undefined) stop = b;
      });
      await run.launch(
        { kind: 'demo', pages: 12, latency: 'instant' },
        { maxTasks: 2, stopOnEntry: true, record: true },
        'debugger',
      );
      await ep.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: DECL }] });
      await ep.request('continue', {});
      await until('the live stop on `let response`', () => stop, 30_000);
      const liveStop: HostEvents['paused'] = stop!;
      offPause();
      const live = await momentOf(ep, liveStop.taskId!);
      // On to the end: the breakpoint off, the run finishes.
      await ep.request('setBreakpoints', { file: CRAWLER, breakpoints: [] });
      await ep.request('continue', {});
      await until('the run finished', () => run.phase === 'finished', 30_000);
      await ep.request('setBreakpoints', { file: CRAWLER, breakpoints: [{ file: CRAWLER, line: DECL }] });
      const hit = await ep.request('pastBreakpointHit', { direction: 'forward', tick: 0 });
      assert.equal(hit.landed, 'line', JSON.stringify(hit));
      assert.deepEqual([hit.landed === 'line' ? hit.tick : -1], [liveStop.tick]);
      const past = await momentOf(ep, liveStop.taskId!);
      assert.deepEqual(past, live, 'the past hit answers as the live stop did');
    } finally {
      detach();
    }
  });
});
