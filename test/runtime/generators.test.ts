// The chapter's generator examples ("A Web Crawler With asyncio Coroutines": How Python
// Generators Work, Factoring Coroutines With yield from, Cancellation) ported to
// JavaScript generators, with no loop at all: `gen.next(v)` is Python's `gen.send(v)`,
// `yield*` is `yield from`, `{ done: true, value }` is StopIteration with its value.
// These pin down the language facts the runtime is built on.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';

type Gen<R = unknown> = Generator<unknown, R, unknown>;

/** The chapter's gen_fn: two yields, prints what was sent in, returns 'done'. */
function makeGenFn(log: string[]): () => Gen<string> {
  return function* genFn(): Gen<string> {
    const result = yield 1;
    log.push(`result of yield: ${String(result)}`);
    const result2 = yield 2;
    log.push(`result of 2nd yield: ${String(result2)}`);
    return 'done';
  };
}

describe('how generators work', () => {
  test('calling a generator function runs nothing; it creates a generator', () => {
    const log: string[] = [];
    const genFn = makeGenFn(log);
    const gen = genFn();
    assert.equal(Object.prototype.toString.call(gen), '[object Generator]');
    assert.deepEqual(log, []);
  });

  test('send(None) runs to the first yield; send(v) resumes with v; the end carries the return value', () => {
    const log: string[] = [];
    const gen = makeGenFn(log)();
    assert.deepEqual(gen.next(), { value: 1, done: false });
    assert.deepEqual(gen.next('hello'), { value: 2, done: false });
    assert.deepEqual(log, ['result of yield: hello']);
    // Python raises StopIteration('done'); JavaScript returns done with the value.
    assert.deepEqual(gen.next('goodbye'), { value: 'done', done: true });
    assert.deepEqual(log, ['result of yield: hello', 'result of 2nd yield: goodbye']);
    // A finished generator stays finished.
    assert.deepEqual(gen.next('again'), { value: undefined, done: true });
  });

  test('each generator has its own frame and locals', () => {
    const log: string[] = [];
    const genFn = makeGenFn(log);
    const a = genFn();
    const b = genFn();
    a.next();
    b.next();
    a.next('to a');
    b.next('to b');
    assert.deepEqual(log, ['result of yield: to a', 'result of yield: to b']);
  });

  test('the first value sent is ignored: a just-started generator cannot receive one', () => {
    const log: string[] = [];
    const gen = makeGenFn(log)();
    assert.deepEqual(gen.next('ignored'), { value: 1, done: false });
    gen.next('kept');
    assert.deepEqual(log, ['result of yield: kept']);
  });
});

describe('yield* is yield from', () => {
  test('the caller acts as if it were the inner generator; values flow both ways; rv is the return value', () => {
    const log: string[] = [];
    const genFn = makeGenFn(log);
    function* callerFn(): Gen<void> {
      const gen = genFn();
      const rv = yield* gen;
      log.push(`return value of yield-from: ${rv}`);
    }
    const caller = callerFn();
    assert.deepEqual(caller.next(), { value: 1, done: false });
    assert.deepEqual(caller.next('hello'), { value: 2, done: false });
    assert.deepEqual(caller.next('goodbye'), { value: undefined, done: true });
    assert.deepEqual(log, [
      'result of yield: hello',
      'result of 2nd yield: goodbye',
      'return value of yield-from: done',
    ]);
  });

  test('a chain of yield* passes values through every level', () => {
    function* leaf(): Gen<number> {
      const a = (yield 'need a') as number;
      const b = (yield 'need b') as number;
      return a + b;
    }
    function* middle(): Gen<number> {
      return (yield* leaf()) * 10;
    }
    function* top(): Gen<string> {
      return `total ${yield* middle()}`;
    }
    const g = top();
    assert.deepEqual(g.next(), { value: 'need a', done: false });
    assert.deepEqual(g.next(2), { value: 'need b', done: false });
    assert.deepEqual(g.next(3), { value: 'total 50', done: true });
  });

  test('yield* of a generator that returns at once does not suspend', () => {
    function* immediate(): Gen<number> {
      return 7;
    }
    function* caller(): Gen<number> {
      const v = yield* immediate();
      yield v;
      return v + 1;
    }
    const g = caller();
    assert.deepEqual(g.next(), { value: 7, done: false });
    assert.deepEqual(g.next(), { value: 8, done: true });
  });
});

describe('exceptions through yield*', () => {
  test('an error raised in the inner generator propagates through the caller (the trace shows both)', () => {
    function* genFn(): Gen<void> {
      throw new Error('my error');
    }
    function* callerFn(): Gen<void> {
      yield* genFn();
    }
    const caller = callerFn();
    let caught: unknown;
    try {
      caller.next();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Error);
    assert.equal(caught.message, 'my error');
    // Both frames are on the stack when it is thrown: the chain is not "stack-ripped".
    assert.match(caught.stack ?? '', /genFn/);
    assert.match(caught.stack ?? '', /callerFn/);
  });

  test('the caller catches an exception from a sub-coroutine with try/catch, like a subroutine call', () => {
    const log: string[] = [];
    function* genFn(): Gen<void> {
      yield 1;
      throw new Error('uh oh');
    }
    function* callerFn(): Gen<void> {
      try {
        yield* genFn();
      } catch (e) {
        log.push(`caught ${(e as Error).message}`);
      }
    }
    const caller = callerFn();
    assert.deepEqual(caller.next(), { value: 1, done: false });
    assert.deepEqual(caller.next('hello'), { value: undefined, done: true });
    assert.deepEqual(log, ['caught uh oh']);
  });

  test('an exception crosses several levels and is caught two frames up', () => {
    const log: string[] = [];
    function* leaf(): Gen<void> {
      yield 'leaf waiting';
      throw new TypeError('deep');
    }
    function* middle(): Gen<void> {
      try {
        yield* leaf();
      } finally {
        log.push('middle finally');
      }
    }
    function* top(): Gen<string> {
      try {
        yield* middle();
        return 'no';
      } catch (e) {
        return `top caught ${(e as Error).message}`;
      }
    }
    const g = top();
    g.next();
    assert.deepEqual(g.next(), { value: 'top caught deep', done: true });
    assert.deepEqual(log, ['middle finally']);
  });
});

describe('throw() into a suspended generator', () => {
  test('the generator resumes by raising the exception at its yield; uncaught, it bubbles out', () => {
    const log: string[] = [];
    const gen = makeGenFn(log)();
    gen.next();
    const err = new Error('error');
    assert.throws(
      () => gen.throw(err),
      (e) => e === err,
    );
    // The generator is finished afterwards.
    assert.deepEqual(gen.next(), { value: undefined, done: true });
  });

  test('throw() reaches the innermost generator of a yield* chain, where try/finally runs', () => {
    const log: string[] = [];
    class Cancelled extends Error {}
    function* inner(): Gen<void> {
      try {
        yield 'inner waiting';
      } finally {
        log.push('inner finally');
      }
    }
    function* outer(): Gen<void> {
      try {
        yield* inner();
      } catch (e) {
        log.push(`outer caught ${(e as Error).constructor.name}`);
        throw e;
      }
    }
    const g = outer();
    assert.deepEqual(g.next(), { value: 'inner waiting', done: false });
    assert.throws(() => g.throw(new Cancelled()), Cancelled);
    assert.deepEqual(log, ['inner finally', 'outer caught Cancelled']);
  });

  test('a generator can catch what is thrown in and go on yielding', () => {
    function* resilient(): Gen<string> {
      try {
        yield 'first';
      } catch (e) {
        yield `recovered from ${(e as Error).message}`;
      }
      return 'end';
    }
    const g = resilient();
    g.next();
    assert.deepEqual(g.throw(new Error('hiccup')), { value: 'recovered from hiccup', done: false });
    assert.deepEqual(g.next(), { value: 'end', done: true });
  });

  test('throw() into a generator that has not started finishes it without running its body', () => {
    const log: string[] = [];
    function* body(): Gen<void> {
      try {
        log.push('started');
        yield;
      } finally {
        log.push('finally');
      }
    }
    const g = body();
    assert.throws(() => g.throw(new Error('early')), /early/);
    assert.deepEqual(log, []);
    assert.deepEqual(g.next(), { value: undefined, done: true });
  });

  test('return() closes a suspended generator, running its finally blocks (Python close())', () => {
    const log: string[] = [];
    function* inner(): Gen<void> {
      try {
        yield 'waiting';
      } finally {
        log.push('inner finally');
      }
    }
    function* outer(): Gen<void> {
      try {
        yield* inner();
      } finally {
        log.push('outer finally');
      }
    }
    const g = outer();
    g.next();
    assert.deepEqual(g.return(undefined), { value: undefined, done: true });
    assert.deepEqual(log, ['inner finally', 'outer finally']);
  });
});
