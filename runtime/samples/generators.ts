// Sample 1, generator basics: what the rest is built on. A generator is a function whose frame
// survives between calls; `next(v)` resumes it and makes `v` the value of the `yield` it was
// paused at; `return` ends it with a value; `yield*` delegates to another generator and
// evaluates to that one's return value; `throw(e)` raises e at the paused `yield`; an error
// crosses a `yield*` chain like a call stack. Each part runs as its own step of a runtime
// task (a `yield* sleep(0)` between parts), so the inspector can stop between them.

import { coroutine } from '../coroutine';
import { sleep } from '../sleep';
import type { Coroutine } from '../task';
import { runOnLoop } from './run-on-loop';
import { SOURCES, type Sample } from './sample';
import { Transcript } from './transcript';

/** Receives numbers, yields the running total; a negative number ends it, returning the total. */
function* runningTotal(): Generator<number, number, number> {
  let total = 0;
  for (;;) {
    const x = yield total;
    if (x < 0) return total;
    total += x;
  }
}

/** Asks its driver for two numbers and returns their sum. */
function* askTwice(): Generator<string, number, number> {
  const a = yield 'inner: first number?';
  const b = yield 'inner: second number?';
  return a + b;
}

/** Delegates to askTwice with yield*: the driver talks to the inner generator directly. */
function* delegating(): Generator<string, number, number> {
  const sum = yield* askTwice();
  yield `outer: the inner generator returned ${sum}`;
  return sum * 10;
}

function* guarded(): Generator<string, string, unknown> {
  try {
    yield 'guarded: paused in try';
    return 'guarded: never resumed normally';
  } catch (error) {
    return `guarded: caught "${(error as Error).message}" at its yield`;
  }
}

function* leaf(log: (line: string) => void): Generator<string, number, unknown> {
  try {
    yield 'leaf: paused';
    throw new Error('leaf failed');
  } finally {
    log('  leaf: finally block ran');
  }
}

function* middle(log: (line: string) => void): Generator<string, number, unknown> {
  // No try here: the error passes through, as through a plain call.
  return yield* leaf(log);
}

function* top(log: (line: string) => void): Generator<string, string, unknown> {
  try {
    const n = yield* middle(log);
    return `top: got ${n}`;
  } catch (error) {
    return `top: caught "${(error as Error).message}" from two frames down`;
  }
}

const tour = coroutine(function* generatorTour(t: Transcript): Coroutine<void> {
  t.log('1. Values sent in: next(v) makes v the value of the paused yield.');
  const totals = runningTotal();
  totals.next(); // run to the first yield
  for (const x of [3, 4, 5]) t.log(`  sent ${x}, total now ${String(totals.next(x).value)}`);
  const end = totals.next(-1);
  t.log(`  sent -1: done=${String(end.done)}, returned ${String(end.value)}`);
  t.check(end.done === true && end.value === 12, 'runningTotal returns 12');
  yield* sleep(0);

  t.log('2. yield* delegates: the driver talks to the inner generator; yield* evaluates to its return value.');
  const d = delegating();
  t.log(`  next()  -> ${String(d.next().value)}`);
  t.log(`  next(1) -> ${String(d.next(1).value)}`);
  const third = d.next(2);
  t.log(`  next(2) -> ${String(third.value)}`);
  const last = d.next(0);
  t.log(`  next()  -> done=${String(last.done)}, outer returned ${String(last.value)}`);
  t.check(third.value === 'outer: the inner generator returned 3' && last.value === 30, 'delegation returns 3, then 30');
  yield* sleep(0);

  t.log('3. throw(e) raises e where the generator is paused.');
  const g = guarded();
  t.log(`  next() -> ${String(g.next().value)}`);
  const thrown = g.throw(new Error('boom'));
  t.log(`  throw(new Error("boom")) -> ${String(thrown.value)}`);
  t.check(thrown.done === true && String(thrown.value).includes('caught "boom"'), 'guarded catches boom');
  yield* sleep(0);

  t.log('4. An error crosses a yield* chain: leaf -> middle -> top.');
  const lines = (line: string): void => t.log(line);
  const chain = top(lines);
  t.log(`  next() -> ${String(chain.next().value)} (all three frames are suspended)`);
  const crossed = chain.next();
  t.log(`  next() -> ${String(crossed.value)}`);
  t.check(crossed.value === 'top: caught "leaf failed" from two frames down', 'top catches the leaf error');
  const chain2 = top(lines);
  chain2.next();
  const fromOutside = chain2.throw(new Error('thrown in from outside'));
  t.log(`  throw() into top lands in leaf first, then -> ${String(fromOutside.value)}`);
  t.check(String(fromOutside.value).includes('thrown in from outside'), 'an error thrown into top reaches leaf and comes back up');
});

export const generatorsSample: Sample = {
  id: 'generators',
  ownLoop: false,
  title: 'Generator basics: send, return, yield*, throw',
  chapter: `${SOURCES.chapter}: "How Python Generators Work" and "Factoring Coroutines With yield from"`,
  explanation:
    'A generator keeps its frame alive between resumes: watch its locals survive each next(). ' +
    'The value passed to next(v) becomes the value of the paused yield, and a return ends it with a value. ' +
    'With yield* the outer generator steps aside: values go straight to the inner one, and yield* evaluates to the inner return value. ' +
    'throw(e) raises e at the paused yield, so try/catch and finally work across a pause. ' +
    'In part 4, step into the chain and see the error travel leaf -> middle -> top as it would through ordinary calls.',
  async run(ctx) {
    const t = new Transcript(ctx);
    await runOnLoop(ctx.loop, tour(t), tour.name);
    return t.outcome();
  },
};
