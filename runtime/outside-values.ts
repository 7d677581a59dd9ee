// Values a program reads from outside the loop within a tick: Math.random(), performance.now(),
// Date.now(), and the time `new Date()` and `Date()` take. A recorded run's recorder writes each
// one its program reads (run-recorder.ts) and a replay gives them back in the same order
// (run-replay.ts), so the past shows the values the live run saw. Each loop may have one tap; the
// globals are wrapped once (wrapGlobals) and ask the running loop's.
//
// Invariants: without a tap on the running loop, or outside any loop, each reads as Node's own;
// the runtime's own readings (its slices, clocks and timings) use realNow()/realDateNow(), and a
// debugger's (an expression evaluated while the thread is held, a condition or logpoint message
// run between beginLooking and endLooking) and the host's work for the program (a module loaded
// in a tick: its transpile, not its top level) read live, never through the tap: looking adds no
// reading to the program's.

import { holdUnderWay, realNow, setProgramNow } from './held-time';
import type { EventLoop } from './loop';
import { runningLoopOrNull } from './running-loop';

export { realNow };

/** Which value was read, as the log writes it. */
export const enum OutsideValue {
  RANDOM = 0,
  PERFORMANCE_NOW = 1,
  DATE_NOW = 2,
  /** `new Date()` or `Date()`: the time they take. */
  NEW_DATE = 3,
}

/** A recorder's or a replay's: the value the program reads, given how to read it live. */
export interface OutsideValueTap {
  read(kind: OutsideValue, live: () => number): number;
}

const nodeRandom = Math.random;
const nodePerformanceNow = performance.now.bind(performance);
const nodeDateNow = Date.now;
const NodeDate = Date;
/** How many debugger evaluations (beginLooking .. endLooking) are under way. */
let looking = 0;

/**
 * A debugger's evaluation in the program's frame (a condition, a logpoint's message) begins: its reads are
 * live until endLooking. Called by the evaluated code itself, which ends it in a `finally`.
 */
export function beginLooking(): void {
  looking++;
}

export function endLooking(): void {
  looking = Math.max(0, looking - 1);
}

/**
 * Runs the program's own code within a stretch that is not (a module's top level, run by a loader that
 * transpiled it as the host): its reads are the program's again.
 */
export function asProgram<T>(run: () => T): T {
  const was = looking;
  looking = 0;
  try {
    return run();
  } finally {
    looking = was;
  }
}

/** Date.now() as Node reads it: for the tools' own stamps. */
export function realDateNow(): number {
  return nodeDateNow();
}

const taps = new WeakMap<EventLoop, OutsideValueTap>();
let wrapped = false;

/** Sets (or, with null, removes) the tap `loop`'s program reads outside values through. */
export function setOutsideValueTap(loop: EventLoop, tap: OutsideValueTap | null): void {
  if (tap === null) {
    taps.delete(loop);
    return;
  }
  wrapGlobals();
  taps.set(loop, tap);
}

function read(kind: OutsideValue, live: () => number): number {
  const loop = runningLoopOrNull();
  const tap = loop === null ? undefined : taps.get(loop);
  return tap === undefined || looking > 0 || holdUnderWay() ? live() : tap.read(kind, live);
}

/**
 * Wraps the globals now (setOutsideValueTap does at the latest). A process that records or replays calls it
 * before it loads a program: a program that keeps a reference (`const { now } = Date`) then holds the wrapper,
 * in the live run and in its replays alike.
 */
export function wrapGlobals(): void {
  if (wrapped) return;
  wrapped = true;
  Math.random = function random(): number {
    return read(OutsideValue.RANDOM, nodeRandom);
  };
  const programNow = function now(): number {
    return read(OutsideValue.PERFORMANCE_NOW, nodePerformanceNow);
  };
  performance.now = programNow;
  setProgramNow(programNow);
  const dateNow = function now(): number {
    return read(OutsideValue.DATE_NOW, nodeDateNow);
  };
  // Date itself: only a call without arguments reads the clock; every other call, `instanceof`, the
  // prototype and the statics are Node's Date's (a subclass's `super()` included).
  const ProgramDate = function Date(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return new NodeDate(read(OutsideValue.NEW_DATE, nodeDateNow)).toString();
    if (args.length === 0) return Reflect.construct(NodeDate, [read(OutsideValue.NEW_DATE, nodeDateNow)], new.target);
    return Reflect.construct(NodeDate, args, new.target);
  } as unknown as DateConstructor;
  Object.setPrototypeOf(ProgramDate, NodeDate);
  Object.defineProperty(ProgramDate, 'prototype', { value: NodeDate.prototype, writable: false });
  Object.defineProperty(ProgramDate, 'now', { value: dateNow, writable: true, configurable: true });
  Object.defineProperty(ProgramDate, 'length', { value: 7 });
  // A date's `constructor` is the global Date a program sees (`d.constructor === Date`).
  Object.defineProperty(NodeDate.prototype, 'constructor', { value: ProgramDate, writable: true, configurable: true });
  NodeDate.now = dateNow;
  globalThis.Date = ProgramDate;
}
