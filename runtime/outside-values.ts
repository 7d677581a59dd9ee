// Values a program reads from outside the loop within a tick: Math.random(), performance.now(),
// Date.now(), `new Date()`/`Date()`, crypto's random values, process.hrtime, uptime, cpuUsage and
// memoryUsage; and the outcomes of its file calls (outside-effects.ts). A recorded run's recorder writes
// each one its program reads (run-recorder.ts), a replay gives them back in order (run-replay.ts).
// Each loop may have one tap; the globals are wrapped once (wrapGlobals) and ask the running loop's.
// See docs/design/recording-and-replay.md.
//
// Invariants: without a tap on the running loop, or outside any loop, each reads as Node's own; a
// wrapper calls Node's own first (its checks and errors are Node's). The runtime's own readings use
// realNow()/realDateNow(); a debugger's (held thread, or beginLooking..endLooking) and the host's work
// for the program (a module's transpile, not its top level) read live, never through the tap.

import type { RandomUUIDOptions, UUID, webcrypto } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { holdUnderWay, realNow, setProgramNow } from './held-time';
import { wrapFileEffects, type EffectTap } from './outside-effects';
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
  /** crypto.randomUUID(): its 128 bits, four 32-bit words. */
  RANDOM_UUID = 4,
  /** Random bytes (crypto.getRandomValues, randomBytes, randomFillSync): a 32-bit word (less at the end). */
  RANDOM_BYTES = 5,
  /** crypto.randomInt(): the integer. */
  RANDOM_INT = 6,
  /** process.hrtime(): its seconds, then its nanoseconds. */
  HRTIME = 7,
  /** process.hrtime.bigint(): its high, then its low 32 bits. */
  HRTIME_BIGINT = 8,
  /** process.uptime(). */
  UPTIME = 9,
  /** process.cpuUsage(): its user, then its system microseconds. */
  CPU_USAGE = 10,
  /** process.memoryUsage(): rss, heapTotal, heapUsed, external, arrayBuffers. */
  MEMORY_USAGE = 11,
  /** process.memoryUsage.rss(). */
  MEMORY_RSS = 12,
  /** One number of a file call's outcome (outside-effects.ts): what it returned, or threw. */
  FILE_OUTCOME = 13,
}

/** The last OutsideValue (a READ record of a higher kind is corrupt). */
export const LAST_OUTSIDE_VALUE = OutsideValue.FILE_OUTCOME;

/**
 * A recorder's or a replay's: the value the program reads, given how to read it live. `replaying`: a replay's
 * (the program's effects on files are then not made: outside-effects.ts).
 */
export interface OutsideValueTap {
  readonly replaying?: boolean;
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

/**
 * Runs the tools' own work on the program's thread (the host writing a recording, maybe within a held tick):
 * its reads and file calls are Node's, never recorded nor replayed as the program's.
 */
export function asTools<T>(run: () => T): T {
  looking++;
  try {
    return run();
  } finally {
    looking--;
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

/** The running loop's tap, where the program's own code runs (null: none, or a debugger's evaluation). */
function tapNow(): OutsideValueTap | null {
  const loop = runningLoopOrNull();
  const tap = loop === null ? undefined : taps.get(loop);
  return tap === undefined || looking > 0 || holdUnderWay() ? null : tap;
}

function read(kind: OutsideValue, live: () => number): number {
  const tap = tapNow();
  return tap === null ? live() : tap.read(kind, live);
}

/** The tap as outside-effects.ts uses it: a file call's outcome, a number at a time. */
function effectTap(): EffectTap | null {
  const tap = tapNow();
  return tap === null
    ? null
    : { replaying: tap.replaying === true, read: (live) => tap.read(OutsideValue.FILE_OUTCOME, live) };
}

/** Passes Node's random `bytes[from, to)` through the tap as 32-bit words (the last one shorter), in place. */
function readBytes(bytes: Uint8Array, from = 0, to = bytes.length): void {
  for (let at = from; at < to; at += 4) {
    const end = Math.min(at + 4, to);
    let word = 0;
    for (let i = end - 1; i >= at; i--) word = word * 256 + bytes[i]!;
    let given = read(OutsideValue.RANDOM_BYTES, () => word);
    for (let i = at; i < end; i++) {
      bytes[i] = given % 256;
      given = Math.floor(given / 256);
    }
  }
}

/** The bytes of `view` (any ArrayBufferView), to pass through readBytes. */
function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Wraps node:crypto's random values and Web Crypto's getRandomValues (wrapGlobals). */
function wrapCrypto(): void {
  // The module object itself (an `import *` would be a copy): a program's `require` and imports see its exports.
  const nodeCrypto = require('node:crypto') as {
    -readonly [K in keyof typeof import('node:crypto')]: typeof import('node:crypto')[K];
  };
  const nodeRandomUUID = nodeCrypto.randomUUID;
  nodeCrypto.randomUUID = function randomUUID(options?: RandomUUIDOptions): UUID {
    const hex = nodeRandomUUID(options).replace(/-/g, '');
    const words = [0, 1, 2, 3].map((i) => {
      const live = Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16);
      return read(OutsideValue.RANDOM_UUID, () => live)
        .toString(16)
        .padStart(8, '0');
    });
    const given = words.join('');
    return `${given.slice(0, 8)}-${given.slice(8, 12)}-${given.slice(12, 16)}-${given.slice(16, 20)}-${given.slice(20)}` as UUID;
  };
  const nodeRandomBytes = nodeCrypto.randomBytes;
  nodeCrypto.randomBytes = function randomBytes(size: number, callback?: (e: Error | null, b: Buffer) => void) {
    // The callback form fills later, outside this call: Node's.
    if (callback !== undefined) return nodeRandomBytes(size, callback);
    const bytes = nodeRandomBytes(size);
    readBytes(bytes);
    return bytes;
  } as typeof nodeCrypto.randomBytes;
  const nodeRandomFillSync = nodeCrypto.randomFillSync;
  nodeCrypto.randomFillSync = function randomFillSync(
    buffer: Parameters<typeof nodeRandomFillSync>[0],
    offset?: number,
    size?: number,
  ) {
    const filled = nodeRandomFillSync(buffer, offset, size);
    // The bytes Node filled: its offset and size count elements of a typed array, bytes of anything else.
    const view = ArrayBuffer.isView(buffer) ? bytesOf(buffer) : new Uint8Array(buffer);
    const element = (buffer as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
    const from = (offset ?? 0) * element;
    readBytes(view, from, size === undefined ? view.length : from + size * element);
    return filled;
  } as typeof nodeCrypto.randomFillSync;
  const nodeRandomInt = nodeCrypto.randomInt;
  nodeCrypto.randomInt = function randomInt(...args: unknown[]): number | undefined {
    const callback = args[args.length - 1];
    if (typeof callback === 'function') return (nodeRandomInt as (...a: unknown[]) => undefined)(...args);
    const live = (nodeRandomInt as (...a: unknown[]) => number)(...args);
    return read(OutsideValue.RANDOM_INT, () => live);
  } as typeof nodeCrypto.randomInt;
  // Web Crypto's (globalThis.crypto, and node:crypto's getRandomValues and webcrypto, the same object): its
  // randomUUID is node:crypto's wrapped one.
  const web = nodeCrypto.webcrypto as webcrypto.Crypto;
  const webRandomUUID = nodeCrypto.randomUUID;
  Object.defineProperty(web, 'randomUUID', {
    value: function randomUUID(): UUID {
      return webRandomUUID();
    },
    writable: true,
    configurable: true,
  });
  const nodeGetRandomValues = web.getRandomValues.bind(web);
  Object.defineProperty(web, 'getRandomValues', {
    value: function getRandomValues(array: Parameters<typeof nodeGetRandomValues>[0]) {
      const filled = nodeGetRandomValues(array);
      readBytes(bytesOf(filled));
      return filled;
    },
    writable: true,
    configurable: true,
  });
}

/** Wraps process.uptime, cpuUsage and memoryUsage (wrapGlobals): what a program's statistics print. */
function wrapProcessUsage(): void {
  const nodeUptime = process.uptime;
  process.uptime = function uptime(): number {
    const live = nodeUptime();
    return read(OutsideValue.UPTIME, () => live);
  };
  const nodeCpuUsage = process.cpuUsage;
  process.cpuUsage = function cpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage {
    const { user, system } = nodeCpuUsage(previous);
    return { user: read(OutsideValue.CPU_USAGE, () => user), system: read(OutsideValue.CPU_USAGE, () => system) };
  };
  const nodeMemoryUsage = process.memoryUsage;
  const nodeRss = process.memoryUsage.rss;
  const memoryUsage = function memoryUsage(): NodeJS.MemoryUsage {
    const live = nodeMemoryUsage();
    const given = (value: number): number => read(OutsideValue.MEMORY_USAGE, () => value);
    return {
      rss: given(live.rss),
      heapTotal: given(live.heapTotal),
      heapUsed: given(live.heapUsed),
      external: given(live.external),
      arrayBuffers: given(live.arrayBuffers),
    };
  };
  memoryUsage.rss = function rss(): number {
    const live = nodeRss();
    return read(OutsideValue.MEMORY_RSS, () => live);
  };
  process.memoryUsage = memoryUsage;
}

/** Wraps process.hrtime and process.hrtime.bigint (wrapGlobals). */
function wrapHrtime(): void {
  const nodeHrtime = process.hrtime;
  const nodeBigint = process.hrtime.bigint;
  const hrtime = function hrtime(previous?: [number, number]): [number, number] {
    const [seconds, nanoseconds] = nodeHrtime(previous);
    return [read(OutsideValue.HRTIME, () => seconds), read(OutsideValue.HRTIME, () => nanoseconds)];
  };
  hrtime.bigint = function bigint(): bigint {
    const live = nodeBigint();
    const high = read(OutsideValue.HRTIME_BIGINT, () => Number(live >> 32n));
    const low = read(OutsideValue.HRTIME_BIGINT, () => Number(live & 0xffffffffn));
    return (BigInt(high) << 32n) | BigInt(low);
  };
  process.hrtime = hrtime;
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
  wrapCrypto();
  wrapHrtime();
  wrapProcessUsage();
  wrapFileEffects(effectTap);
  // A program's ES module imports of node:crypto and node:fs (`import { randomUUID } from 'node:crypto'`) see the
  // wrappers too.
  syncBuiltinESMExports();
}
