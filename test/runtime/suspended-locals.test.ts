// Tests of runtime/suspended-locals.ts, through what turns it on (setCoroutineTracking(true),
// as every tool that reads frames does before the program runs): a coroutine whose code V8's
// optimizing compiler built, suspended at a `yield` after which it no longer reads some of its
// locals, still shows those locals' values to the inspector (GeneratorReader), as the same
// coroutine does while its code is cold. Before, the optimized code saved only the locals
// read after the `yield`, and the others read `undefined` (waitReadable's `fut` and `kind`).
// The optimization is forced (V8's natives syntax, allowed in this test's process only) and
// checked, so the test cannot pass on code that was never optimized.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { setCoroutineTracking } from '../../runtime/index';
import { GeneratorReader, HandleTable, inspectorSession, type GeneratorFrame } from '../../runtime/inspect/index';
import { KEEP_SUSPENDED_LOCALS_FLAGS, suspendedLocalsKept } from '../../runtime/suspended-locals';

// What the inspector does before it reads frames: tracking on, before the program's code runs.
setCoroutineTracking(true);

setFlagsFromString('--allow-natives-syntax');
// V8's own test hooks: compile a function's next call with the optimizing compiler; its status bits.
const prepare = new Function('f', '%PrepareFunctionForOptimization(f);') as (f: unknown) => void;
const optimizeOnNextCall = new Function('f', '%OptimizeFunctionOnNextCall(f);') as (f: unknown) => void;
const optimizationStatus = new Function('f', 'return %GetOptimizationStatus(f);') as (f: unknown) => number;
/** V8's OptimizationStatus bit for code built by an optimizing compiler (kOptimized). */
const OPTIMIZED = 1 << 4;

const reader = new GeneratorReader(inspectorSession(), new HandleTable());

/**
 * waitReadable's shape (the generator function coroutine() wraps: the wrapper does not change
 * its code): `fut` and `kind` are not read again after the `yield`; `sock` and `offClose` are.
 */
function* waitsOn(sock: { fd: number }, kind: string = 'socket.read'): Generator<unknown, number, unknown> {
  const fut = { origin: kind, fd: sock.fd };
  const offClose = (): number => sock.fd;
  try {
    yield fut;
  } finally {
    offClose();
  }
  return sock.fd;
}

function localsOf(frame: GeneratorFrame): Map<string, string> {
  return new Map((frame.locals ?? []).map((l) => [l.name, l.value.text]));
}

/** A suspended waitsOn, read with its locals. */
function suspendedRead(fd: number): Map<string, string> {
  const gen = waitsOn({ fd });
  gen.next();
  const frame = reader.readGenerator(gen, { locals: true });
  gen.return(0);
  assert.equal(frame.state, 'suspended');
  return localsOf(frame);
}

test('tracking on tells V8 to keep every local of a suspended generator', () => {
  assert.equal(suspendedLocalsKept(), true);
  assert.deepEqual(KEEP_SUSPENDED_LOCALS_FLAGS, ['--no-analyze-environment-liveness', '--no-maglev']);
});

test('a coroutine suspended in optimized code shows the locals it no longer reads after its yield, as it does cold', () => {
  const cold = suspendedRead(3);
  assert.equal(cold.get('kind'), '"socket.read"');
  assert.equal(cold.get('fut'), '{origin: "socket.read", fd: 3}');

  const fn = waitsOn;
  prepare(fn);
  for (let i = 0; i < 50; i++) {
    const g = fn({ fd: i });
    g.next();
    g.return(0);
  }
  optimizeOnNextCall(fn);
  const hot = suspendedRead(7);
  assert.ok(
    (optimizationStatus(fn) & OPTIMIZED) !== 0,
    `waitsOn was optimized (V8 status ${optimizationStatus(fn).toString(2)})`,
  );
  assert.deepEqual(
    [...hot],
    [...cold].map(([name, text]) => [name, text.replace('fd: 3', 'fd: 7')]),
    'the same locals, with the values this call holds',
  );
});
