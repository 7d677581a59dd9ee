// Tests of runtime/shape-anchors.ts: building a loop anchors one inert instance of each hot
// class (a tracked coroutine's frame too), on a loop of its own that never runs; the anchors never show in a user's loop
// (not stepped, not reported at close, not the running loop, not counted: a program's first
// task is #1).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventLoop,
  Future,
  GatheringFuture,
  Handle,
  Task,
  TimerHandle,
  VirtualClock,
  coroutine,
  getRunningLoop,
  isTrackingWrapper,
  sleep,
  type Coroutine,
} from '../../runtime/index';
import { shapeAnchors } from '../../runtime/shape-anchors';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

describe('shape anchors', () => {
  test('the first loop anchors a Future, a Task, a GatheringFuture, handles and a loop of their own', () => {
    const user = new EventLoop({ clock: new VirtualClock() });
    const anchors = shapeAnchors();
    const anchorLoop = anchors.find((a) => a instanceof EventLoop) as EventLoop | undefined;
    assert.ok(anchorLoop !== undefined);
    assert.notEqual(anchorLoop, user);
    for (const cls of [Future, Task, GatheringFuture, Handle, TimerHandle]) {
      assert.ok(
        anchors.some((a) => a instanceof cls),
        `an anchored ${cls.name}`,
      );
    }
    assert.ok(anchors.some(isTrackingWrapper), "an anchored tracked coroutine's frame (tracking on or off)");
    for (const a of anchors)
      if (a instanceof Future) assert.equal(a.getLoop(), anchorLoop, 'anchors belong to the inert loop');
    const again = new EventLoop();
    assert.equal(shapeAnchors(), anchors, 'anchoring happens once');
    again.close();
    user.close();
  });

  test('the anchor task is never stepped and a user loop reports nothing of it', async () => {
    const warnings: string[] = [];
    const loop = new EventLoop({
      clock: new VirtualClock(),
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    const main = coroutine(function* main(): Coroutine<EventLoop> {
      yield* sleep(1);
      return getRunningLoop();
    });
    assert.equal(await loop.runUntilComplete(main()), loop);
    loop.close();
    assert.deepEqual(warnings, []);
    const task = shapeAnchors().find((a) => a instanceof Task) as Task<unknown>;
    assert.equal(task.steps(), 0);
    assert.equal(task.done(), false);
  });

  test("a fresh process's first task is #1, Task-1, as asyncio's (the anchor task takes no number)", () => {
    // A process of its own: this one has made tasks already.
    const runtime = JSON.stringify(join(__dirname, '..', '..', 'runtime', 'index.ts'));
    const script = `
      const { run, coroutine, currentTask, sleep } = require(${runtime});
      run(coroutine(function* main() {
        yield* sleep(0);
        const t = currentTask();
        return [t.id, t.name];
      })()).then((r) => process.stdout.write(JSON.stringify(r)));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.deepEqual(JSON.parse(out), [1, 'Task-1']);
    const anchor = shapeAnchors().find((a) => a instanceof Task) as Task<unknown>;
    assert.equal(anchor.id, 0);
  });
});
