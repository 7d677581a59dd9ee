// A past line in a task's first step (issue 25: the past is exact): stopped on the second line of
// a program's main before its first await (tick 1), Step Back shows the first line, replayed; the
// task's facts there (taskDetail, as the debugger's Task scope and the panel ask them) are the task's
// as it ran that line, and the moment's table lists it.
// Runs against the bundle (the line debugger's worker and the replay host run the bundle).
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forkHost, HostClient, ROOT } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'fixtures', 'first-step-lines.ts');
const SECOND = lineOf(PROGRAM, 'const second = first + 1;');
const FIRST = lineOf(PROGRAM, 'const first = 1;');

describe("a past line in a task's first step (bundle)", {
  timeout: 60_000,
}, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test('the task is known there: its detail and its row', async () => {
    await host.rpc.request('setExceptionBreaks', { taskFailed: false, taskCancelled: false });
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.waitFor('paused', () => true, 30_000, 0);
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [{ file: PROGRAM, line: SECOND }] });
    const stop = await host.continueToLineStop(30_000);
    assert.equal(stop.line?.line, SECOND);
    const live = await host.rpc.request('taskDetail', { taskId: stop.taskId!, locals: false });
    const from = host.events.length;
    const back = await host.rpc.request('lineStepBack', {});
    assert.equal(back.landed, 'line', JSON.stringify(back));
    const p = await host.waitFor('paused', (b) => b.pastLine === true, 15_000, from);
    assert.equal(p.line?.line, FIRST);
    assert.equal(p.taskId, stop.taskId);
    const past = await host.rpc.request('taskDetail', { taskId: stop.taskId!, locals: false });
    // The same task on the line before, in the same step: its facts but the busy time (not known in the past).
    assert.deepEqual({ ...past.task, busyMs: 'n/a' }, { ...live.task, busyMs: 'n/a' });
    assert.equal(past.task.busyMs, null);
    assert.deepEqual(
      past.frames.map((f) => [f.name, f.position?.line]),
      [['main', FIRST]],
    );
    const rows = (await host.rpc.request('snapshot', {})).tasks;
    assert.deepEqual(
      rows.map((t) => [t.id, t.name, t.state]),
      [[stop.taskId, 'main', 'running']],
    );
  });
});
