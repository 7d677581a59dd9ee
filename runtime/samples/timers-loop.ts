// Sample 7c, from the asyncio-vs-Node article: an event loop of our own, of callbacks and
// timers, running a periodic "hello" and a few one-shot timers (see tiny-callback-loop.ts).

import { TICK_PERIOD_SECONDS, fib } from './fib';
import { SOURCES, type Sample } from './sample';
import { TinyCallbackLoop } from './tiny-callback-loop';
import { Transcript } from './transcript';

const HELLOS = 4;
/** A Fibonacci number small enough not to hold the loop up noticeably. */
const SMALL_FIB_N = 22;

export const timersLoopSample: Sample = {
  id: 'timers-loop',
  ownLoop: true,
  title: 'A callback event loop with a timer heap, built by hand',
  chapter: `${SOURCES.asyncioVsNode}: the event loop with callbacks and timers`,
  explanation:
    'This loop is about forty lines: a list of ready callbacks and a heap of timers ordered by due time. ' +
    'Each turn moves the due timers to the ready list, runs them, and then waits until the next timer is due (a real loop would wait in select() so that sockets could wake it). ' +
    'The three one-shot timers are added out of order (c, a, b) and fire in time order (a, b, c): that is the heap. ' +
    'hello() reschedules itself every period, the callback style of setInterval: the program is cut into callbacks, and its state lives in the closures. ' +
    'Nothing here is a coroutine; the next sample puts coroutines on a loop like this one.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const loop = new TinyCallbackLoop();
    const stamp = (): string => `+${loop.time().toFixed(2)} s`;
    const fired: string[] = [];
    let hellos = 0;
    const hello = (): void => {
      hellos++;
      t.log(`${stamp()} hello ${hellos}`);
      if (hellos < HELLOS) loop.callLater(TICK_PERIOD_SECONDS, hello);
    };
    /** A callback named as the inspector lists it ("timer a"), for each timer's own closure. */
    const named = (name: string, callback: () => void): (() => void) => Object.defineProperty(callback, 'name', { value: name });
    const oneShot = (name: string, delay: number): void => {
      loop.callLater(
        delay,
        named(`timer ${name}`, () => {
          fired.push(name);
          t.log(`${stamp()} timer ${name} (due at ${delay.toFixed(2)} s)`);
        }),
      );
    };
    loop.callSoon(hello);
    oneShot('c', 0.25);
    oneShot('a', 0.05);
    oneShot('b', 0.15);
    loop.callLater(TICK_PERIOD_SECONDS * 1.5, named('input', () => t.log(`${stamp()} input arrived: fib(${SMALL_FIB_N}) = ${fib(SMALL_FIB_N)}`)));
    t.log(`three timers added in the order c, a, b; hello every ${TICK_PERIOD_SECONDS} s, ${HELLOS} times`);
    await loop.runForever();
    t.note('turns', loop.turns);
    t.note('hellos', hellos);
    t.log(`the loop ran out of timers after ${loop.turns} turns`);
    t.check(fired.join(',') === 'a,b,c', 'the timers fired in time order');
    t.check(hellos === HELLOS, `hello ran ${HELLOS} times`);
    return t.outcome();
  },
};
