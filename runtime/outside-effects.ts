// Effects a program makes outside the loop with Node's synchronous file calls: files written, made,
// moved or removed (writeFileSync, appendFileSync, writeSync, an openSync for writing, mkdirSync, ...).
// Recorded, each call is Node's and its outcome (the value returned, or the error thrown) goes through
// the loop's tap as numbers; replayed, none is made: the recorded outcome is given back, so looking at
// the past (a Step Back, a logpoint's list, a seek) never writes the user's files again.
// See docs/design/recording-and-replay.md.
//
// Invariants: without a tap (no recorded loop running, a debugger's evaluation) each call is Node's; a
// replay performs no call wrapped here, in a tick or not (outside the recorded ticks it answers as Node
// does on success); a file opened for writing in a replay is an fd of the recording's, never one of the
// process's, and the calls on it are not made either. Reads are Node's, live and replayed.

/** The running loop's tap as this file uses it: whether it replays, and one number of an outcome through it. */
export interface EffectTap {
  readonly replaying: boolean;
  /** Recording: `live()`, written; replaying: the recorded number, or `live()` where the recording has none. */
  read(live: () => number): number;
}

/** The outcome of one call: what it returned, or what it threw. */
type Outcome =
  | { kind: 'returned'; value: undefined | number | string }
  | {
      kind: 'threw';
      message: string;
      code: string;
      errno: number;
      syscall: string;
      path: string;
      dest: string;
    };

const enum Tag {
  /** The replay's recording has no outcome here (the replay is not the run recorded, or out of its ticks). */
  NONE = -1,
  UNDEFINED = 0,
  NUMBER = 1,
  STRING = 2,
  THREW = 3,
}

/** Writes `s` through the tap: its length, then its UTF-16 code units; reads it back when replaying. */
function passString(tap: EffectTap, s: string): string {
  const length = tap.read(() => s.length);
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(tap.read(() => s.charCodeAt(i)));
  return out;
}

/** The outcome as Node gave it, written through a recording tap. */
function record(tap: EffectTap, outcome: Outcome): void {
  if (outcome.kind === 'threw') {
    tap.read(() => Tag.THREW);
    passString(tap, outcome.message);
    passString(tap, outcome.code);
    tap.read(() => outcome.errno);
    passString(tap, outcome.syscall);
    passString(tap, outcome.path);
    passString(tap, outcome.dest);
    return;
  }
  const { value } = outcome;
  if (value === undefined) tap.read(() => Tag.UNDEFINED);
  else if (typeof value === 'number') {
    tap.read(() => Tag.NUMBER);
    tap.read(() => value);
  } else {
    tap.read(() => Tag.STRING);
    passString(tap, value);
  }
}

/** The recorded outcome, read through a replay's tap; null where the recording has none. */
function recorded(tap: EffectTap): Outcome | null {
  const tag = tap.read(() => Tag.NONE);
  switch (tag) {
    case Tag.UNDEFINED:
      return { kind: 'returned', value: undefined };
    case Tag.NUMBER:
      return { kind: 'returned', value: tap.read(() => Number.NaN) };
    case Tag.STRING:
      return { kind: 'returned', value: passString(tap, '') };
    case Tag.THREW: {
      const message = passString(tap, '');
      const code = passString(tap, '');
      const errno = tap.read(() => 0);
      return {
        kind: 'threw',
        message,
        code,
        errno,
        syscall: passString(tap, ''),
        path: passString(tap, ''),
        dest: passString(tap, ''),
      };
    }
    default:
      return null;
  }
}

/** What a call threw, as an outcome (a non-Error is its text). */
function thrownOutcome(e: unknown): Outcome {
  const x = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  const text = (k: string): string => (typeof x[k] === 'string' ? (x[k] as string) : '');
  return {
    kind: 'threw',
    message: e instanceof Error ? e.message : String(e),
    code: text('code'),
    errno: typeof x.errno === 'number' ? x.errno : 0,
    syscall: text('syscall'),
    path: text('path'),
    dest: text('dest'),
  };
}

/** The error a recorded outcome says the call threw: its message, code, errno, syscall and paths. */
function rebuiltError(o: Extract<Outcome, { kind: 'threw' }>): Error {
  const e = new Error(o.message) as Error & Record<string, unknown>;
  if (o.code !== '') e.code = o.code;
  if (o.errno !== 0) e.errno = o.errno;
  if (o.syscall !== '') e.syscall = o.syscall;
  if (o.path !== '') e.path = o.path;
  if (o.dest !== '') e.dest = o.dest;
  return e;
}

/** The value a call gives, as its outcome keeps it (a Buffer path of mkdtemp is not one a program gets here). */
function keptValue(v: unknown): undefined | number | string {
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
}

/**
 * Fds a replay's openSync for writing gave (the recording's numbers; none is open in this process): no call is
 * made on them, in a tick or not. True: opened within a tick (its close is recorded, as recordedFds').
 */
const phantomFds = new Map<number, boolean>();
/** Fds a recorded run opened for writing within its ticks: their close is recorded too (a replay's phantom's is). */
const recordedFds = new Set<number>();
/** Fds given outside the recorded ticks of a replay: numbers no real fd has. */
let nextPhantomFd = 0x40000000;
/** Replays' starts of their programs under way (withoutFileEffects): no call wrapped here is made. */
let replayStarts = 0;

/**
 * Runs `start`, a replay's start of its program (its modules' top level runs again, outside the recorded
 * ticks, where no tap is): the program's file calls meanwhile are not made, and answer as Node's on success.
 */
export function withoutFileEffects<T>(start: () => T): T {
  replayStarts++;
  try {
    return start();
  } finally {
    replayStarts--;
  }
}

type FsModule = { -readonly [K in keyof typeof import('node:fs')]: typeof import('node:fs')[K] };

/**
 * Wraps node:fs's synchronous calls that change files (wrapGlobals, once, then syncBuiltinESMExports: an ES
 * module's `import { writeFileSync } from 'node:fs'` gets the wrapper). `tapNow` gives the running loop's tap
 * (null: none, or a debugger's evaluation: Node's call).
 */
export function wrapFileEffects(tapNow: () => EffectTap | null): void {
  const fs = require('node:fs') as FsModule;
  // Node's own calls within one wrapped here (writeFileSync opens, writes and closes through `fs.*`) are part
  // of it: not recorded, and not made again when replayed.
  let within = 0;
  const active = (): EffectTap | null => (within > 0 ? null : tapNow());

  /**
   * `fn` wrapped: Node's call, its outcome recorded; replayed, the recorded outcome (`unrecorded` where there is
   * none: Node's success, not made). A call on a phantom fd (`fdOf`) is never made.
   */
  const effect = <A extends unknown[], R>(
    fn: (...args: A) => R,
    unrecorded: (...args: A) => R,
    fdOf: ((...args: A) => unknown) | null = null,
  ): ((...args: A) => R) =>
    function (this: unknown, ...args: A): R {
      const tap = active();
      const phantom = fdOf !== null && phantomFds.has(fdOf(...args) as number);
      if (tap === null) return phantom || replayStarts > 0 ? unrecorded(...args) : fn.apply(this, args);
      if (!tap.replaying) {
        let value: R;
        within++;
        try {
          value = fn.apply(this, args);
        } catch (e) {
          record(tap, thrownOutcome(e));
          throw e;
        } finally {
          within--;
        }
        record(tap, { kind: 'returned', value: keptValue(value) });
        return value;
      }
      const outcome = recorded(tap);
      if (outcome === null) return unrecorded(...args);
      if (outcome.kind === 'threw') throw rebuiltError(outcome);
      return outcome.value as R;
    };
  const fd0 = (fd: unknown): unknown => fd;
  const none = (): undefined => undefined;

  const writeFlags = (flags: unknown): boolean =>
    typeof flags === 'number'
      ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC)) !== 0
      : typeof flags === 'string' && /[wa+]/.test(flags);
  // An fd opened for writing: in a replay, the recording's number, kept as a phantom (no file is opened).
  const nodeOpenSync = fs.openSync;
  const openForWriting = effect(nodeOpenSync, () => nextPhantomFd++);
  fs.openSync = function openSync(...args: Parameters<typeof nodeOpenSync>): number {
    if (!writeFlags(args[1])) return nodeOpenSync(...args);
    const tap = active();
    const fd = openForWriting(...args);
    if (tap?.replaying === true || (tap === null && replayStarts > 0)) phantomFds.set(fd, tap !== null);
    else if (tap !== null) recordedFds.add(fd);
    return fd;
  } as typeof fs.openSync;
  const nodeCloseSync = fs.closeSync;
  const closeEffect = effect(nodeCloseSync, none, fd0);
  fs.closeSync = function closeSync(fd: number): void {
    // A phantom's close is never made (the number may be a real fd here): its outcome is the recorded one when
    // its open was recorded; a written fd's close is recorded.
    const phantom = phantomFds.get(fd);
    if (phantom === false) {
      phantomFds.delete(fd);
      return;
    }
    if (phantom === true || recordedFds.has(fd)) {
      try {
        closeEffect(fd);
      } finally {
        phantomFds.delete(fd);
        recordedFds.delete(fd);
      }
      return;
    }
    // Not one opened for writing: Node's close, live and replayed alike (never recorded).
    nodeCloseSync(fd);
  };

  const byteLength = (data: unknown): number =>
    typeof data === 'string' ? Buffer.byteLength(data) : ArrayBuffer.isView(data) ? data.byteLength : 0;
  fs.writeSync = effect(fs.writeSync, (_fd: number, data: unknown) => byteLength(data), fd0) as typeof fs.writeSync;
  fs.writevSync = effect(
    fs.writevSync,
    (_fd: number, buffers: readonly NodeJS.ArrayBufferView[]) => buffers.reduce((n, b) => n + b.byteLength, 0),
    fd0,
  ) as typeof fs.writevSync;
  fs.mkdtempSync = effect(fs.mkdtempSync, (prefix: string) => `${prefix}000000`) as typeof fs.mkdtempSync;
  // Calls on an fd, and on a path (which may be an fd too, for writeFileSync and appendFileSync): they return
  // nothing (mkdirSync: the first directory it made, recorded; none outside the ticks).
  for (const name of [
    'writeFileSync',
    'appendFileSync',
    'ftruncateSync',
    'fsyncSync',
    'fdatasyncSync',
    'fchmodSync',
    'fchownSync',
    'futimesSync',
    'mkdirSync',
    'rmSync',
    'rmdirSync',
    'unlinkSync',
    'renameSync',
    'copyFileSync',
    'cpSync',
    'truncateSync',
    'chmodSync',
    'lchmodSync',
    'chownSync',
    'lchownSync',
    'utimesSync',
    'lutimesSync',
    'symlinkSync',
    'linkSync',
  ] as const) {
    const node = fs[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof node === 'function') (fs as Record<string, unknown>)[name] = effect<unknown[], unknown>(node, none, fd0);
  }
}
