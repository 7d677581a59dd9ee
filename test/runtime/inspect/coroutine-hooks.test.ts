// Tests of the one coroutine-tracking hooks slot shared by the inspector's parts (runtime/inspect/coroutine-hooks.ts):
// enabled, the hub is the slot's hooks and hears a real coroutine's created / started / finished; every
// listener hears each, in the order added (one listener alone, or several); a removed one no more; one that
// throws goes to onError and the others still hear it.

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { isCoroutineTrackingOn } from '../../../runtime/coroutine';
import { CoroutineHooksHub } from '../../../runtime/inspect/coroutine-hooks';
import {
  type Coroutine,
  type CoroutineFrame,
  coroutine,
  EventLoop,
  setCoroutineTracking,
  VirtualClock,
} from '../../../runtime/index';

afterEach(() => setCoroutineTracking(false));

/** A listener that notes each hook it hears, by its name and the function's name. */
function noting(name: string, heard: string[]) {
  return {
    created: (_gen: unknown, fn: { name: string }) => heard.push(`${name} created ${fn.name}`),
    started: (frame: CoroutineFrame) => heard.push(`${name} started ${frame.fn.name} at depth ${frame.depth}`),
    finished: (frame: CoroutineFrame) => heard.push(`${name} finished ${frame.fn.name}`),
  };
}

const inner = coroutine(function* inner(): Coroutine<number> {
  yield;
  return 1;
});
const outer = coroutine(function* outer(): Coroutine<number> {
  return yield* inner();
});

describe('CoroutineHooksHub', () => {
  test("enabled, it is the tracking's hooks: a task's coroutines heard created, started, finished", async () => {
    const hub = new CoroutineHooksHub();
    const heard: string[] = [];
    hub.add(noting('a', heard));
    hub.enable(true);
    assert.equal(isCoroutineTrackingOn(), true);
    const loop = new EventLoop({ clock: new VirtualClock() });
    assert.equal(await loop.runUntilComplete(outer()), 1);
    loop.close();
    assert.deepStrictEqual(heard, [
      'a created outer',
      'a started outer at depth 0',
      'a created inner',
      'a started inner at depth 1',
      'a finished inner',
      'a finished outer',
    ]);
    hub.enable(false);
    assert.equal(isCoroutineTrackingOn(), false);
    outer();
    assert.equal(heard.length, 6);
  });

  test('listeners hear each hook in the order added; a removed one hears no more', () => {
    const hub = new CoroutineHooksHub();
    const heard: string[] = [];
    const removeA = hub.add(noting('a', heard));
    hub.add(noting('b', heard));
    // Only some hooks: the others are not called for it.
    hub.add({ finished: (frame) => heard.push(`c finished ${frame.fn.name}`) });
    const gen = inner();
    const frame: CoroutineFrame = { gen, fn: inner, task: null, parent: null, depth: 0 };
    hub.created(gen, inner);
    hub.started(frame);
    hub.finished(frame);
    removeA();
    hub.created(gen, inner);
    hub.finished(frame);
    assert.deepStrictEqual(heard, [
      'a created inner',
      'b created inner',
      'a started inner at depth 0',
      'b started inner at depth 0',
      'a finished inner',
      'b finished inner',
      'c finished inner',
      'b created inner',
      'b finished inner',
      'c finished inner',
    ]);
  });

  test('a listener that throws goes to onError; the others still hear the hook (one listener alone too)', () => {
    const hub = new CoroutineHooksHub();
    const errors: string[] = [];
    hub.onError = (e) => errors.push(e instanceof Error ? e.message : String(e));
    const heard: string[] = [];
    const boom = (what: string) => () => {
      throw new Error(`${what} failed`);
    };
    const removeThrowing = hub.add({ created: boom('created'), started: boom('started'), finished: boom('finished') });
    const gen = inner();
    const frame: CoroutineFrame = { gen, fn: inner, task: null, parent: null, depth: 0 };
    // Alone: the hot path's one listener.
    hub.created(gen, inner);
    hub.add(noting('b', heard));
    hub.created(gen, inner);
    hub.started(frame);
    hub.finished(frame);
    removeThrowing();
    hub.created(gen, inner);
    assert.deepStrictEqual(errors, ['created failed', 'created failed', 'started failed', 'finished failed']);
    assert.deepStrictEqual(heard, [
      'b created inner',
      'b started inner at depth 0',
      'b finished inner',
      'b created inner',
    ]);
  });
});
