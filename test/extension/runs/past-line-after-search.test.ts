// A past line stays the moment every view reads after a search from it finds nothing: gather-vs-ascompleted
// stopped live on URL2's `return` (its first hit), Step Back to its `done` line, then Reverse Continue finds no
// earlier hit and the line stays shown. The task's detail (its top line) and the snapshot a view asks must be that
// past line's, as right after the Step Back, not the live stop's (the present), on the real runtime host.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HostEvents } from '../../../protocol/host-protocol';
import type { HostEndpoint } from '../../../extension/host-client/host-process';
import { RunRegistry } from '../../../extension/runs/run-registry';
import { lineOf } from '../../source-line';
import { until } from '../wait-until';
import { distBundle } from '../../dist-bundles';

const HOST = distBundle('runtime-host.js');
const FILE = join(__dirname, '..', '..', '..', 'runtime', 'samples', 'gather-vs-ascompleted.ts');
const DONE = lineOf(FILE, 't.log(`  done: ${url} took');
const RETURN = lineOf(FILE, 'return [url, seconds];');

/** What a view reads of the moment: the task's top line and every task's state. */
async function momentOf(ep: HostEndpoint, taskId: number): Promise<unknown> {
  const detail = await ep.request('taskDetail', { taskId });
  const snap = await ep.request('snapshot', {});
  return {
    top: detail.frames[0]?.position?.line ?? null,
    tasks: snap.tasks.map((t) => [t.id, t.state]).sort((a, b) => Number(a[0]) - Number(b[0])),
  };
}

describe('a past line after a search that found nothing', { timeout: 120_000 }, () => {
  let runs: RunRegistry;

  before(() => {
    runs = new RunRegistry({ hostScript: HOST, clientName: 'test' });
  });
  after(async () => {
    await runs.dispose();
  });

  it("is still the moment the views' queries answer for", async () => {
    const run = await runs.start();
    const detach = run.attach('debugger');
    try {
      const ep = run.endpoint;
      let stop: HostEvents['paused'] | null = null;
      const offPause = ep.on('paused', (b) => {
        if (b.line !== undefined && b.pastLine !== true) stop = b;
      });
      await run.launch(
        { kind: 'sample', id: 'gather-vs-ascompleted' },
        { stopOnEntry: true, record: true },
        'debugger',
      );
      await ep.request('setBreakpoints', { file: FILE, breakpoints: [{ file: FILE, line: RETURN }] });
      await ep.request('continue', {});
      await until('the live stop on `return`', () => stop, 30_000);
      offPause();
      const taskId = stop!.taskId!;
      assert.equal(((await momentOf(ep, taskId)) as { top: number }).top, RETURN);
      const landing = await ep.request('lineStepBack', {});
      assert.equal(landing.landed, 'line', JSON.stringify(landing));
      const back = await momentOf(ep, taskId);
      assert.equal((back as { top: number }).top, DONE, 'after Step Back: the past line');
      const search = await ep.request('pastBreakpointHit', { direction: 'back', tick: stop!.tick });
      assert.equal(search.landed, 'none', JSON.stringify(search));
      assert.deepEqual(await momentOf(ep, taskId), back, 'after the search: the same past line');
    } finally {
      detach();
    }
  });
});
