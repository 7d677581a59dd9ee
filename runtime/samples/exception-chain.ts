// Sample 7e, from the asyncio-vs-Node article: an exception raised in coroutine A crosses B,
// which does not catch it, and is caught in C, as with ordinary calls.

import { coroutine } from '../coroutine';
import { sleep } from '../sleep';
import type { Coroutine } from '../task';
import { runOnLoop } from './run-on-loop';
import { SOURCES, type Sample } from './sample';
import { formatFrames, frameNames } from './stack-frames';
import { Transcript } from './transcript';

// The constants are named apart from the functions so that a bundler keeps the functions'
// own names (A, B, C), which are what the trace shows.
const raiseInA = coroutine(function* A(): Coroutine<number> {
  yield* sleep(0.01); // suspended here: the loop runs other things, then resumes the whole chain
  throw new Error('Something went wrong in A');
});

const passThroughB = coroutine(function* B(): Coroutine<number> {
  const a = yield* raiseInA();
  return a + 1; // never reached
});

const catchInC = coroutine(function* C(t: Transcript): Coroutine<string> {
  try {
    const b = yield* passThroughB();
    return `C got ${b}`;
  } catch (error) {
    const e = error as Error;
    t.log(`C caught: ${e.message}`);
    const names = frameNames(e.stack).filter((n) => /^(?:A|B|C)$/.test(n));
    t.log(`coroutine frames in its trace: ${formatFrames(names)}`);
    return names.join(',');
  }
});

export const exceptionChainSample: Sample = {
  id: 'exception-chain',
  ownLoop: false,
  title: 'An exception crossing coroutines A -> B -> C',
  chapter: `${SOURCES.asyncioVsNode}: exception handling across coroutines; ${SOURCES.chapter}: the traceback through yield from`,
  explanation:
    'C waits on B with yield*, and B waits on A. ' +
    'A suspends on a sleep, so for a moment all three are paused frames held by one task; step and look at the task\'s stack: A on top of B on top of C. ' +
    'When the loop resumes the task, the whole chain is back on the machine stack, and A throws. ' +
    'B has no try, so the error passes through it like through a plain call, and C catches it. ' +
    'Its trace lists A, B and C: nothing was ripped, unlike the callback version.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const names = await runOnLoop(ctx.loop, catchInC(t), catchInC.name);
    t.check(names === 'A,B,C', 'the trace holds A, B and C, innermost first');
    return t.outcome();
  },
};
