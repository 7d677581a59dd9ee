// extension/debug/stop-cache.ts: the host reads of one stop are asked once, a failed one is asked
// again, and a new stop (SessionCore.invalidate) forgets them all; on the fake host (no fork).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskDetail } from '../../../protocol/host-protocol';
import { SessionCore, type DapSink } from '../../../extension/debug/session-core';
import { StopCache } from '../../../extension/debug/stop-cache';
import { makeTask } from '../../webview/fixtures-tasks';
import { FakeRun, FakeRuns } from './fake-debug-host';

const SINK: DapSink = {
  sendEvent: () => undefined,
  sendResponse: () => undefined,
  sendErrorResponse: () => undefined,
  convertDebuggerLineToClient: (line) => line,
  convertDebuggerColumnToClient: (column) => column,
  convertDebuggerPathToClient: (path) => path,
  convertClientPathToDebugger: (path) => path,
  convertClientLineToDebugger: (line) => line,
};

function detail(taskId: number, name: string): TaskDetail {
  return { task: makeTask(taskId, { name }), frames: [], awaitChain: [], createdAt: null, traceback: null };
}

/** A stop cache on a session bound to a fake run whose host answers taskDetail with a name per ask. */
function setUp(): { core: SessionCore; cache: StopCache; run: FakeRun; asked: () => string[] } {
  const run = new FakeRun('paused');
  const core = new SessionCore(SINK, { hostScript: 'none', runs: new FakeRuns(run) });
  core.host = run.host;
  core.run = run;
  let n = 0;
  run.endpoint.serve('taskDetail', (p) => detail(p.taskId, `ask ${++n}${p.locals === true ? ' with locals' : ''}`));
  run.endpoint.serve('lineStack', () => ({ taskId: 3, frames: [] }));
  run.endpoint.serve('programLoops', () => ({ loops: [] }));
  const asked = (): string[] => run.endpoint.requests.map((r) => `${r.method} ${JSON.stringify(r.params)}`);
  return { core, cache: new StopCache(core), run, asked };
}

describe('StopCache', () => {
  it("asks a task's detail once per stop; one with locals answers for one without", async () => {
    const { cache, asked } = setUp();
    const plain = await cache.detailOf(3, false);
    assert.equal((await cache.detailOf(3, false)).task.name, plain.task.name);
    assert.equal((await cache.detailOf(3, true)).task.name, 'ask 2 with locals');
    assert.equal((await cache.detailOf(3, false)).task.name, 'ask 2 with locals', 'the fuller read serves both');
    assert.deepEqual(asked(), ['taskDetail {"taskId":3,"locals":false}', 'taskDetail {"taskId":3,"locals":true}']);
  });

  it("puts the detail's row in the run's task table", async () => {
    const { cache, run } = setUp();
    await cache.detailOf(5, false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(run.tasks.tasks.get(5)?.name, 'ask 1');
  });

  it('forgets a read that failed: the next ask goes to the host again', async () => {
    const { cache, run, asked } = setUp();
    run.endpoint.serve('taskDetail', () => {
      throw new Error('the host could not read it');
    });
    await assert.rejects(cache.detailOf(4, false), /could not read it/);
    await new Promise((resolve) => setImmediate(resolve));
    run.endpoint.serve('taskDetail', (p) => detail(p.taskId, 'second try'));
    assert.equal((await cache.detailOf(4, false)).task.name, 'second try');
    assert.equal(asked().length, 2);
  });

  it('a new stop drops every read and frame id: each is asked again', async () => {
    const { core, cache, asked } = setUp();
    await cache.detailOf(3, false);
    await cache.lineFrames();
    await cache.lineFrames();
    await cache.loopsAtStop();
    await cache.loopsAtStop();
    cache.frameRefs.set(1, { kind: 'await', taskId: 3 });
    assert.equal(asked().length, 3, 'once each within a stop');
    core.invalidate();
    assert.equal(cache.frameRefs.size, 0);
    assert.equal((await cache.detailOf(3, false)).task.name, 'ask 2');
    await cache.lineFrames();
    await cache.loopsAtStop();
    assert.deepEqual(
      asked().map((a) => a.split(' ')[0]),
      ['taskDetail', 'lineStack', 'programLoops', 'taskDetail', 'lineStack', 'programLoops'],
    );
  });
});
