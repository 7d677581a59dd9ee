// DebuggedRun (extension/debugged-run.ts): the panel's "Follow This Task" reaches the debug session of
// the run shown, and only that one; the panel hears when such a session comes and goes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DebuggedRun, type DebugSessionPort } from '../../extension/debugged-run';
import { Emitter } from '../../extension/emitter';

class Shown {
  run: object | null = null;
  readonly onReset = new Emitter<void>();
}

/** A debug session of `run`: the tasks it was asked to follow. */
function session(run: object): DebugSessionPort & { followed: number[] } {
  const followed: number[] = [];
  return {
    run,
    followed,
    followTask: async (taskId: number) => {
      followed.push(taskId);
    },
  };
}

describe('DebuggedRun', () => {
  it("follows a task through the session of the run shown, never another run's", async () => {
    const shown = new Shown();
    const runA = {};
    const runB = {};
    shown.run = runA;
    const debugged = new DebuggedRun(shown);
    await assert.rejects(debugged.followTask(3), /no debug session debugs the run shown/);
    const a = session(runA);
    const b = session(runB);
    debugged.sessionsChanged([b, a]);
    await debugged.followTask(3);
    assert.deepEqual(a.followed, [3]);
    assert.deepEqual(b.followed, []);
    debugged.sessionsChanged([b]);
    await assert.rejects(debugged.followTask(4), /no debug session/);
    assert.deepEqual(a.followed, [3]);
  });

  it('tells the panel when a session of the run shown comes and goes, and on a new run shown', () => {
    const shown = new Shown();
    const run = {};
    shown.run = run;
    const debugged = new DebuggedRun(shown);
    const heard: boolean[] = [];
    debugged.onDebugged.on((d) => heard.push(d));
    debugged.sessionsChanged([session({})]);
    assert.deepEqual(heard, [], "another run's session changes nothing");
    debugged.sessionsChanged([session(run)]);
    debugged.sessionsChanged([session(run)]);
    assert.deepEqual(heard, [true], 'told once');
    assert.equal(debugged.debugged(), true);
    shown.run = {};
    shown.onReset.fire();
    assert.deepEqual(heard, [true, false]);
    shown.run = run;
    shown.onReset.fire();
    assert.deepEqual(heard, [true, false, true]);
    debugged.sessionsChanged([]);
    assert.deepEqual(heard, [true, false, true, false]);
    debugged.dispose();
  });
});
