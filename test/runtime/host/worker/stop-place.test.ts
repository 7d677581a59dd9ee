// Tests of runtime/host/worker/stop-place.ts: a line stop no task runs is said with its thread
// (the main thread, the debugger's "event loop" thread), its frame, and who runs the code there:
// the runtime loop's tick, Node's dispatch of a worker thread's message, or Node's event loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopPlace, type StopFrame } from '../../../../runtime/host/worker/stop-place';

const SAMPLE = '/w/runtime/samples/fib-threads.ts';
const frame = (
  functionName: string,
  url: string,
  file: string | null = url.startsWith('node:') ? null : url,
  line: number | null = 31,
): StopFrame => ({ functionName, url, file, line });

test("a handler of a worker thread's message: the main thread, the frame, Node's event loop between the runtime loop's ticks", () => {
  const frames = [
    frame('onAnswer', `file://${SAMPLE}`, SAMPLE),
    frame('emit', 'node:events'),
    frame('[kOnMessage]', 'node:internal/worker', null, null),
    frame('processTicksAndRejections', 'node:internal/process/task_queues'),
  ];
  // As the inspector shows them from the host's bundle: Node's own frames with no script listed.
  const bundled = [
    frame('onAnswer', 'file:///w/dist/runtime-host.js', SAMPLE),
    frame('emit', '', null, null),
    frame('', '', null, null),
    frame('[nodejs.internal.kHybridDispatch]', '', null, null),
  ];
  for (const f of [frames, bundled])
    assert.equal(
      stopPlace(f, 6),
      `the stop (onAnswer at fib-threads.ts:31) is on the main thread (the debugger's "event loop" thread), in a handler of a message from one of the program's worker threads, which Node's event loop runs between the runtime loop's ticks`,
    );
});

test("a callback of the runtime loop's tick: said with the tick", () => {
  const frames = [
    frame('', `file://${SAMPLE}`, SAMPLE, 32),
    frame('_run', 'file:///w/runtime/handle.ts', '/w/runtime/handle.ts'),
    frame('_oneTick', 'file:///w/runtime/loop.ts', '/w/runtime/loop.ts'),
  ];
  assert.equal(
    stopPlace(frames, 7),
    `the stop ((anonymous) at fib-threads.ts:32) is on the main thread (the debugger's "event loop" thread), in a callback the runtime's loop runs in tick 7`,
  );
});

test("code Node's event loop runs (a loop of the program's own, a timer): the runtime's and the host's frames are not the stopped frame", () => {
  const frames = [
    frame('run', 'file:///w/runtime/samples/timers-loop.ts', '/w/runtime/samples/timers-loop.ts', 40),
    frame('launch', 'file:///w/runtime/host/main-thread/run.ts', '/w/runtime/host/main-thread/run.ts'),
    frame('listOnTimeout', 'node:internal/timers'),
  ];
  assert.equal(
    stopPlace(frames, 0),
    "the stop (run at timers-loop.ts:40) is on the main thread (the debugger's \"event loop\" thread), in code Node's event loop runs outside the runtime loop's ticks (a loop of the program's own, a Node timer or I/O handler, or its code around the runtime's loop)",
  );
  assert.equal(
    stopPlace([frame('listOnTimeout', 'node:internal/timers')], 0),
    "the stop is on the main thread (the debugger's \"event loop\" thread), in code Node's event loop runs outside the runtime loop's ticks (a loop of the program's own, a Node timer or I/O handler, or its code around the runtime's loop)",
    'no frame of the program: no frame named',
  );
});
