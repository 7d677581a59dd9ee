// The event log of a recorded run: one byte stream of records in the order they happened (ticks,
// task steps and suspensions, tasks created/done/cancelled, cancels and uncancels, completions
// and by whom, timers, sockets and their inputs, values the program read from outside the loop),
// a side stream of clock readings between ticks,
// and the sockets' bytes kept apart (so the event stream stays small).
//
// Invariants:
// - Append-only; strings are interned (a STRING record once, then by number).
// - Tasks and sockets are numbered by the log in creation order, so a replay's log compares
//   byte for byte.
// - Times are exact: a varint µs delta on the microsecond grid, else a float64.
// - readRunLog checks every record; anything malformed is a RecordingFormatError naming the file.

import { ByteReader, ByteWriter } from './byte-log';
import { RecordingFormatError } from './recording-errors';
import type { SocketInputKind } from '../socket';
import { LAST_OUTSIDE_VALUE } from '../outside-values';

export const enum Op {
  TICK = 1,
  TICK_F64 = 2,
  TICK_END = 3,
  STEP = 4,
  SITE = 5,
  CREATED = 6,
  DONE = 7,
  CANCEL = 8,
  SOCKET = 9,
  INPUT = 10,
  STRING = 11,
  WAKE = 12,
  TIMER = 13,
  /** A pending cancel of a task was taken back (uncancel()): the task, and which of its CANCEL records (from 1). */
  UNCANCEL = 14,
  /**
   * A task ending cancelled was ended by this one of its CANCEL records (from 1), not its oldest pending one:
   * written before its DONE.
   */
  CANCEL_EFFECT = 15,
  /** A value the program read from outside the loop within the tick (outside-values.ts): its kind, then a float64. */
  READ = 16,
}

/** Who completed a future a task awaited, as a WAKE record says: a task's log number, or one of these. */
export const enum WokenBy {
  CALLBACK = 0,
  IO = 1,
  TIMER = 2,
  /** Log number n of a task is written as n + TASK_BASE. */
  TASK_BASE = 3,
}

export const INPUT_KINDS: readonly SocketInputKind[] = ['connect', 'data', 'end', 'drain', 'error', 'close'];
const INPUT_CODES = new Map<SocketInputKind, number>(INPUT_KINDS.map((k, i) => [k, i]));

/** How a task ended, as written in a DONE record. */
export const enum Outcome {
  RESULT = 0,
  EXCEPTION = 1,
  CANCELLED = 2,
}

/** The await kind of a SITE record's text ('queue.get', 'ready', 'done', ...). */
export function siteKind(site: string): string {
  const cut = site.indexOf(' @ ');
  return cut < 0 ? site : site.slice(0, cut);
}

/**
 * The frames of a SITE record's chain (function names, root first), and how many (from the root) were written
 * before it; null without a chain.
 */
export function siteChain(site: string): { frames: string[]; kept: number } | null {
  const cut = site.indexOf(' @ ');
  if (cut < 0) return null;
  const chain = site.slice(cut + 3);
  const bar = chain.indexOf('|');
  const frames = chain.split(/[>|]/).filter((name) => name !== '');
  return {
    frames,
    kept:
      bar < 0
        ? frames.length
        : chain
            .slice(0, bar)
            .split('>')
            .filter((name) => name !== '').length,
  };
}

/** `t` in whole microseconds when that is exact, else null (written as a float64). */
function microseconds(t: number): number | null {
  const us = Math.round(t * 1e6);
  return Number.isSafeInteger(us) && us / 1e6 === t ? us : null;
}

export class RunLogWriter {
  readonly events = new ByteWriter(1 << 16);
  readonly gaps = new ByteWriter(1024);
  readonly payloads: Buffer[] = [];
  payloadBytes = 0;
  ticks = 0;
  steps = 0;
  private readonly strings = new Map<string, number>();
  private prevUs = 0;
  private gapPrevUs = 0;
  private prevId = 0;

  string(s: string): number {
    let id = this.strings.get(s);
    if (id === undefined) {
      id = this.strings.size + 1;
      this.strings.set(s, id);
      const bytes = Buffer.from(s, 'utf8');
      this.events.byte(Op.STRING);
      this.events.uint(bytes.length);
      this.events.raw(bytes);
    }
    return id;
  }

  tick(time: number): void {
    this.ticks++;
    const us = microseconds(time);
    if (us !== null) {
      this.events.byte(Op.TICK);
      this.events.int(us - this.prevUs);
      this.prevUs = us;
    } else {
      this.events.byte(Op.TICK_F64);
      this.events.f64(time);
    }
  }

  tickEnd(callbacksRun: number): void {
    this.events.byte(Op.TICK_END);
    this.events.uint(callbacksRun);
  }

  step(task: number): void {
    this.steps++;
    this.events.byte(Op.STEP);
    this.events.uint(task);
  }

  site(site: string): void {
    this.siteRef(this.string(site));
  }

  /** A SITE whose text is string number `id` (interned by string()). */
  siteRef(id: number): void {
    this.events.byte(Op.SITE);
    this.events.uint(id);
  }

  /** A task was created by task `parent` (0: outside any task) with its process id `id` and its name. */
  created(parent: number, name: string, id: number): void {
    const nameId = this.string(name);
    this.events.byte(Op.CREATED);
    this.events.uint(parent);
    this.events.uint(nameId);
    this.events.int(id - this.prevId);
    this.prevId = id;
  }

  /** The future task `task` awaited was completed by `by` (WokenBy). */
  wake(task: number, by: number): void {
    this.events.byte(Op.WAKE);
    this.events.uint(task);
    this.events.uint(by);
  }

  timer(): void {
    this.events.byte(Op.TIMER);
  }

  done(task: number, outcome: Outcome): void {
    this.events.byte(Op.DONE);
    this.events.uint(task);
    this.events.byte(outcome);
  }

  cancel(task: number, by: number): void {
    this.events.byte(Op.CANCEL);
    this.events.uint(task);
    this.events.uint(by);
  }

  /** The `k`th cancel of `task` (its CANCEL records, from 1) was taken back. */
  uncancel(task: number, k: number): void {
    this.events.byte(Op.UNCANCEL);
    this.events.uint(task);
    this.events.uint(k);
  }

  /** `task`, about to end cancelled, was ended by its `k`th cancel (from 1). */
  cancelEffect(task: number, k: number): void {
    this.events.byte(Op.CANCEL_EFFECT);
    this.events.uint(task);
    this.events.uint(k);
  }

  socket(host: string, port: number): void {
    const id = this.string(host);
    this.events.byte(Op.SOCKET);
    this.events.uint(id);
    this.events.uint(port);
  }

  input(sock: number, kind: SocketInputKind, payload: Buffer | Error | null): void {
    if (kind === 'error') {
      const err = payload as (Error & { code?: unknown }) | null;
      const code = this.string(typeof err?.code === 'string' ? err.code : '');
      const message = this.string(err?.message ?? String(payload));
      this.events.byte(Op.INPUT);
      this.events.uint(sock);
      this.events.byte(INPUT_CODES.get(kind)!);
      this.events.uint(code);
      this.events.uint(message);
      return;
    }
    this.events.byte(Op.INPUT);
    this.events.uint(sock);
    this.events.byte(INPUT_CODES.get(kind)!);
    if (kind === 'data') {
      const chunk = payload as Buffer;
      this.events.uint(chunk.length);
      this.payloads.push(chunk);
      this.payloadBytes += chunk.length;
    }
  }

  /** A value the program read within the tick (outside-values.ts OutsideValue `kind`). */
  read(kind: number, value: number): void {
    this.events.byte(Op.READ);
    this.events.byte(kind);
    this.events.f64(value);
  }

  /** A clock reading between ticks (before tick number `ticks + 1`). */
  gapRead(time: number): void {
    this.gaps.uint(this.ticks);
    const us = microseconds(time);
    if (us !== null) {
      this.gaps.byte(0);
      this.gaps.int(us - this.gapPrevUs);
      this.gapPrevUs = us;
    } else {
      this.gaps.byte(1);
      this.gaps.f64(time);
    }
  }
}

/** An input to feed back to a socket before a tick. */
export interface RecordedInput {
  readonly socket: number;
  readonly kind: SocketInputKind;
  readonly payload: Buffer | Error | null;
}

/** What a replay needs of a recording, decoded once. */
export interface RunLog {
  /** The clock reading of each tick, in order (tick i of the log is `times[i - 1]`). */
  readonly times: Float64Array;
  /** Inputs arriving before tick i (index i - 1); inputs after the last tick are dropped. */
  readonly inputsBefore: ReadonlyArray<readonly RecordedInput[]>;
  /**
   * Cancels asked from outside the loop between ticks (a signal, a tool's cancelTask, a stop)
   * before tick i (index i - 1), in order: inputs to the run like the sockets' (a cancel inside
   * a tick is the program's own and replays itself).
   */
  readonly cancelsBefore: ReadonlyArray<readonly OutsideCancel[]>;
  /**
   * Clock readings between ticks: before tick i (index i - 1), in order (absent: none). A
   * live run's reading may already hold some of the gap after its last tick, still growing:
   * a replay reads them only before the ticks the reading has.
   */
  readonly gapReadsBefore: ReadonlyArray<readonly number[]>;
  /**
   * The values the program read from outside the loop in tick i (index i - 1), in order: kind, value, kind,
   * value... (outside-values.ts); absent or empty: none.
   */
  readonly readsIn: ReadonlyArray<readonly number[]>;
  /** Sockets opened, in order: host and port. */
  readonly sockets: ReadonlyArray<readonly [string, number]>;
  /** Byte offset in the event stream where each tick's record starts (for error messages and the timeline). */
  readonly tickOffsets: Uint32Array;
  /** Byte offset just after each tick's TICK_END record. */
  readonly tickEnds: Uint32Array;
  /** The id and name of each task created, in log order (a replay gives its tasks the same). */
  readonly taskIds: readonly number[];
  readonly taskNames: readonly string[];
  /** An open last tick's task counters: the ids and names of the tasks it creates (none is logged). */
  readonly openTickTasks?: OpenTickTasks;
  readonly steps: number;
  readonly tasks: number;
}

/** What the records of an event log say, in order (every method optional). */
export interface RunLogVisitor {
  /** Tick `tick` (1-based) starts at `time`; its record begins at byte `at` of the log. */
  tick?(tick: number, time: number, at: number): void;
  /** Tick `tick` ended; its records end at byte `end`. */
  tickEnd?(tick: number, end: number): void;
  step?(task: number): void;
  /**
   * Where the last stepped task suspended: the await's kind, then ' @ ' and its frame chain when recorded
   * ('a>b|c', '|' after the calls going since its previous SITE).
   */
  site?(site: string): void;
  created?(task: number, parent: number, name: string, id: number): void;
  done?(task: number, outcome: Outcome): void;
  cancel?(task: number, by: number): void;
  /** The `k`th CANCEL record of `task` (from 1) was taken back (uncancel()). */
  uncancel?(task: number, k: number): void;
  /** `task` ends cancelled by its `k`th CANCEL record (its DONE follows). */
  cancelEffect?(task: number, k: number): void;
  socket?(socket: number, host: string, port: number): void;
  /** `bytes`: how many bytes a data input brought (its payload is null when decoded without the bytes). */
  input?(socket: number, kind: SocketInputKind, payload: Buffer | Error | null, bytes: number): void;
  wake?(task: number, by: number): void;
  timer?(): void;
  /** The program read `value` from outside the loop (outside-values.ts OutsideValue `kind`). */
  read?(kind: number, value: number): void;
}

/** Socket bytes given in chunks (a live recording's, one per data input), taken input by input. */
class PayloadChunks {
  private chunk = 0;
  private at = 0;

  constructor(private readonly chunks: readonly Buffer[]) {}

  /**
   * The next `n` bytes (one chunk's or a part of one, without a copy, when they lie in one), or null when
   * there are fewer.
   */
  take(n: number): Buffer | null {
    const chunks = this.chunks;
    while (this.chunk < chunks.length && this.at === chunks[this.chunk]!.length) {
      this.chunk++;
      this.at = 0;
    }
    const first = chunks[this.chunk];
    if (n === 0) return EMPTY;
    if (first === undefined) return null;
    if (first.length - this.at >= n) {
      this.at += n;
      return first.subarray(this.at - n, this.at);
    }
    const parts: Buffer[] = [];
    for (let left = n; left > 0; ) {
      const c = chunks[this.chunk];
      if (c === undefined) return null;
      const k = Math.min(left, c.length - this.at);
      parts.push(c.subarray(this.at, this.at + k));
      this.at += k;
      left -= k;
      if (this.at === c.length) {
        this.chunk++;
        this.at = 0;
      }
    }
    return Buffer.concat(parts, n);
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Decodes an event log, checking every record, and tells a visitor what each says. It can be
 * fed a growing log (a live run's): `decode(events, upTo)` goes on from where the last call
 * stopped (upTo must end a tick, or the log).
 */
export class RunLogDecoder {
  private readonly strings: string[] = [''];
  private pos = 0;
  private ticks = 0;
  private ended = 0;
  private tasks = 0;
  private sockets = 0;
  private prevUs = 0;
  private prevId = 0;
  private payloadAt = 0;

  constructor(
    private readonly visitor: RunLogVisitor,
    /** What the log is ("run.corotrace"), for error messages. */
    private readonly what: string,
  ) {}

  /** Bytes of the socket payload used so far. */
  get payloadUsed(): number {
    return this.payloadAt;
  }

  /** Ticks decoded so far. */
  get tickCount(): number {
    return this.ticks;
  }

  /**
   * `payload`: the socket bytes from the first one not used yet (payloadUsed) on, whole or in
   * chunks (a growing recording's new ones, as received). Null: the socket bytes are not at
   * hand (a timeline needs only their lengths); data inputs then carry null.
   */
  decode(events: Uint8Array, payload: Buffer | readonly Buffer[] | null, upTo = events.length): void {
    const bytes = payload === null ? null : new PayloadChunks(Buffer.isBuffer(payload) ? [payload] : payload);
    const r = new ByteReader(events.subarray(0, upTo), `the event log of ${this.what}`);
    r.pos = this.pos;
    const v = this.visitor;
    const strings = this.strings;
    const corrupt = (why: string): never => {
      throw new RecordingFormatError(`${this.what} is corrupt: ${why} (event log byte ${r.pos})`);
    };
    const str = (): string => {
      const id = r.uint();
      if (id >= strings.length) corrupt(`string #${id} is used before it is defined`);
      return strings[id]!;
    };
    const taskRef = (allowNone: boolean): number => {
      const n = r.uint();
      if ((n === 0 && !allowNone) || n > this.tasks) corrupt(`task #${n} does not exist`);
      return n;
    };
    while (!r.done) {
      const at = r.pos;
      const op = r.byte();
      switch (op) {
        case Op.TICK:
        case Op.TICK_F64: {
          let t: number;
          if (op === Op.TICK) {
            this.prevUs += r.int();
            t = this.prevUs / 1e6;
          } else t = r.f64();
          if (!Number.isFinite(t)) corrupt('a tick has no valid time');
          if (this.ended !== this.ticks) corrupt('a tick starts before the last one ended');
          this.ticks++;
          v.tick?.(this.ticks, t, at);
          break;
        }
        case Op.TICK_END:
          r.uint();
          if (this.ended !== this.ticks - 1 || this.ticks === 0) corrupt('a tick ends that never started');
          this.ended = this.ticks;
          v.tickEnd?.(this.ticks, r.pos);
          break;
        // (Operands are read before the optional call: `v.step?.(read())` would skip the read.)
        case Op.STEP: {
          const task = taskRef(false);
          v.step?.(task);
          break;
        }
        case Op.SITE: {
          const site = str();
          v.site?.(site);
          break;
        }
        case Op.CREATED: {
          const parent = taskRef(true);
          const name = str();
          this.prevId += r.int();
          if (!Number.isSafeInteger(this.prevId) || this.prevId < 0) corrupt('a task has no valid id');
          this.tasks++;
          v.created?.(this.tasks, parent, name, this.prevId);
          break;
        }
        case Op.DONE: {
          const task = taskRef(false);
          const outcome = r.byte();
          if (outcome > 2) corrupt('a task ended in an unknown way');
          v.done?.(task, outcome as Outcome);
          break;
        }
        case Op.CANCEL: {
          const task = taskRef(false);
          const by = taskRef(true);
          v.cancel?.(task, by);
          break;
        }
        case Op.SOCKET: {
          const host = str();
          const port = r.uint();
          if (port > 65535) corrupt(`port ${port} is out of range`);
          this.sockets++;
          v.socket?.(this.sockets, host, port);
          break;
        }
        case Op.INPUT: {
          const socket = r.uint();
          if (socket === 0 || socket > this.sockets) corrupt(`socket #${socket} was never opened`);
          const kind = INPUT_KINDS[r.byte()];
          if (kind === undefined) return corrupt('a socket input of an unknown kind');
          let payloadValue: Buffer | Error | null = null;
          let n = 0;
          if (kind === 'data') {
            n = r.uint();
            if (bytes !== null) payloadValue = bytes.take(n) ?? corrupt('socket bytes are missing');
            this.payloadAt += n;
          } else if (kind === 'error') {
            const code = str();
            const err = new Error(str()) as Error & { code?: string };
            if (code !== '') err.code = code;
            payloadValue = err;
          }
          v.input?.(socket, kind, payloadValue, n);
          break;
        }
        case Op.STRING: {
          const n = r.uint();
          strings.push(Buffer.from(r.raw(n)).toString('utf8'));
          break;
        }
        case Op.WAKE: {
          const task = taskRef(false);
          const by = r.uint();
          if (by >= WokenBy.TASK_BASE && by - WokenBy.TASK_BASE > this.tasks)
            corrupt(`task #${by - WokenBy.TASK_BASE} does not exist`);
          v.wake?.(task, by);
          break;
        }
        case Op.TIMER:
          v.timer?.();
          break;
        case Op.READ: {
          if (this.ended === this.ticks) corrupt('a value is read outside a tick');
          const kind = r.byte();
          if (kind > LAST_OUTSIDE_VALUE) corrupt('a value read of an unknown kind');
          const value = r.f64();
          v.read?.(kind, value);
          break;
        }
        case Op.UNCANCEL:
        case Op.CANCEL_EFFECT: {
          const task = taskRef(false);
          const k = r.uint();
          if (k === 0) corrupt(`a cancel of task #${task} numbered 0`);
          if (op === Op.UNCANCEL) v.uncancel?.(task, k);
          else v.cancelEffect?.(task, k);
          break;
        }
        default:
          corrupt(`unknown record type ${op}`);
      }
    }
    this.pos = r.pos;
  }

  /**
   * Checks that the log decoded so far is whole: its last tick ended (or only started, `openTick`), each of
   * the `payloadBytes` socket bytes used.
   */
  finish(payloadBytes: number, openTick = false): void {
    if (openTick && (this.ticks === 0 || this.ended !== this.ticks - 1))
      throw new RecordingFormatError(
        `${this.what} is corrupt: it should end with the start of a tick (event log byte ${this.pos})`,
      );
    if (!openTick && this.ended !== this.ticks)
      throw new RecordingFormatError(`${this.what} is corrupt: the last tick never ends (event log byte ${this.pos})`);
    if (this.payloadAt !== payloadBytes)
      throw new RecordingFormatError(
        `${this.what} is corrupt: ${payloadBytes - this.payloadAt} socket bytes belong to no input (event log byte ${this.pos})`,
      );
  }
}

const NO_INPUTS: readonly RecordedInput[] = [];
const NO_READS: readonly number[] = [];
const NO_CANCELS: readonly OutsideCancel[] = [];

/**
 * A cancel asked from outside the loop between ticks: the task's log number, how many of the tick's socket
 * inputs came before it, and its index among the log's cancels by no task (its asked cancel's:
 * asked-cancels.ts).
 */
export interface OutsideCancel {
  readonly task: number;
  readonly afterInputs: number;
  readonly noTask: number;
}

/**
 * A recording's streams as far as they go. A live run's keep growing, and a reading of them
 * is a view, never a copy: the bytes already written never change.
 */
export interface RecordingSoFar {
  /** The event log through the end of its last complete tick (or the start of its open tick). */
  readonly events: Buffer;
  /** The clock readings between ticks so far. */
  readonly gaps: Uint8Array;
  /** The socket bytes of the inputs in `events`, from byte `from` of the payload on (in chunks, not copied). */
  payloadFrom(from: number): readonly Buffer[];
  /** The last tick is open (RecordedStreams.openTick): the streams cannot grow any more. */
  readonly openTick?: boolean;
  /** With openTick: the task counters when it began (RecordedStreams.openTickTasks). */
  readonly openTickTasks?: OpenTickTasks;
}

/**
 * The process's task counters when an open tick began (task.ts TaskCounters, as recorded), and the values its
 * program read before the streams were taken (kind, value...: none of its READ records is in them).
 */
export interface OpenTickTasks {
  readonly nextId: number;
  readonly unnamed: number;
  readonly reads?: readonly number[];
}

/** The whole streams of a finished recording, read as a RecordingSoFar. */
export function wholeRecording(streams: {
  readonly events: Buffer;
  readonly gaps: Uint8Array;
  readonly payload: Buffer;
  readonly openTick?: boolean;
  readonly openTickTasks?: OpenTickTasks;
}): RecordingSoFar {
  return {
    events: streams.events,
    gaps: streams.gaps,
    payloadFrom: (from) => [streams.payload.subarray(from)],
    openTick: streams.openTick === true,
    ...(streams.openTickTasks !== undefined ? { openTickTasks: streams.openTickTasks } : {}),
  };
}

/** A Float64Array or Uint32Array that grows by doubling; `view()` is the values so far (no copy). */
class GrowingNumbers<A extends Float64Array | Uint32Array> {
  private length = 0;
  constructor(
    private values: A,
    private readonly make: (n: number) => A,
  ) {}
  push(x: number): void {
    if (this.length === this.values.length) {
      const next = this.make(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.length++] = x;
  }
  view(): A {
    return this.values.subarray(0, this.length) as A;
  }
}

/**
 * Reads a recording's streams incrementally: each read() decodes and checks only what was
 * added since the last (so a live run's recording read again and again costs its new bytes
 * only), and answers the RunLog so far. The RunLogs it answers share their lists, which only
 * grow: each reading's `times`, `tickOffsets` and `tickEnds` are fixed views of its ticks, and
 * a replay of it reads the others only at its ticks (its gap reads: before the ticks after
 * its first, RunReplay). A reading of an open tick (RecordedStreams.openTick) is its last.
 */
export class RunLogReader {
  private readonly times = new GrowingNumbers(new Float64Array(1024), (n) => new Float64Array(n));
  private readonly offsets = new GrowingNumbers(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly ends = new GrowingNumbers(new Uint32Array(1024), (n) => new Uint32Array(n));
  private readonly inputsBefore: Array<readonly RecordedInput[]> = [];
  private pending: RecordedInput[] = [];
  private readonly cancelsBefore: Array<readonly OutsideCancel[]> = [];
  private pendingCancels: OutsideCancel[] = [];
  /** CANCEL records by no task so far. */
  private noTaskCancels = 0;
  private inTick = false;
  private readonly gapReadsBefore: Array<readonly number[]> = [];
  private readonly readsIn: Array<readonly number[]> = [];
  private readonly sockets: Array<[string, number]> = [];
  private readonly taskIds: number[] = [];
  private readonly taskNames: string[] = [];
  private steps = 0;
  private readonly decoder: RunLogDecoder;
  private gapsAt = 0;
  private gapPrevUs = 0;
  private closed = false;

  constructor(private readonly what: string) {
    this.decoder = new RunLogDecoder(
      {
        tick: (_tick, t, at) => {
          this.times.push(t);
          this.offsets.push(at);
          this.inputsBefore.push(this.pending.length === 0 ? NO_INPUTS : this.pending);
          this.pending = [];
          this.cancelsBefore.push(this.pendingCancels.length === 0 ? NO_CANCELS : this.pendingCancels);
          this.pendingCancels = [];
          this.inTick = true;
        },
        tickEnd: (_tick, end) => {
          this.ends.push(end);
          this.inTick = false;
        },
        cancel: (task, by) => {
          if (by !== 0) return;
          const noTask = this.noTaskCancels++;
          if (!this.inTick) this.pendingCancels.push({ task, afterInputs: this.pending.length, noTask });
        },
        step: () => this.steps++,
        read: (kind, value) => {
          const tick = this.times.view().length - 1;
          while (this.readsIn.length <= tick) this.readsIn.push(NO_READS);
          if (this.readsIn[tick] === NO_READS) this.readsIn[tick] = [];
          (this.readsIn[tick] as number[]).push(kind, value);
        },
        created: (_task, _parent, name, id) => {
          this.taskIds.push(id);
          this.taskNames.push(name);
        },
        socket: (_n, host, port) => this.sockets.push([host, port]),
        input: (socket, kind, payload) => this.pending.push({ socket, kind, payload }),
      },
      what,
    );
  }

  /** Decodes what `streams` hold beyond the last reading, checks it, and answers the log so far. */
  read(streams: RecordingSoFar): RunLog {
    if (this.closed) throw new RangeError(`${this.what}: a recording read through its open tick cannot grow`);
    const base = this.decoder.payloadUsed;
    const payload = streams.payloadFrom(base);
    this.decoder.decode(streams.events, payload);
    const openTick = streams.openTick === true;
    let given = base;
    for (const chunk of payload) given += chunk.length;
    this.decoder.finish(given, openTick);
    this.closed = openTick;
    this.readGaps(streams.gaps);
    const times = this.times.view();
    const openReads = openTick ? streams.openTickTasks?.reads : undefined;
    if (openReads !== undefined && openReads.length > 0 && times.length > 0) {
      while (this.readsIn.length < times.length) this.readsIn.push(NO_READS);
      this.readsIn[times.length - 1] = openReads;
    }
    return {
      times,
      inputsBefore: this.inputsBefore,
      cancelsBefore: this.cancelsBefore,
      gapReadsBefore: this.gapReadsBefore,
      readsIn: this.readsIn,
      sockets: this.sockets,
      tickOffsets: this.offsets.view(),
      tickEnds: this.ends.view(),
      taskIds: this.taskIds,
      taskNames: this.taskNames,
      ...(openTick && streams.openTickTasks !== undefined ? { openTickTasks: streams.openTickTasks } : {}),
      steps: this.steps,
      tasks: this.taskIds.length,
    };
  }

  /** The clock readings between ticks added since the last reading, each in the list of the gap it was read in. */
  private readGaps(gaps: Uint8Array): void {
    const g = new ByteReader(gaps, `the clock readings of ${this.what}`);
    g.pos = this.gapsAt;
    const ticks = this.times.view().length;
    while (!g.done) {
      const at = g.pos;
      const before = g.uint();
      // Read after the last tick of the events (a tick cut off at the end): nothing replays it (yet).
      if (before > ticks) {
        g.pos = at;
        break;
      }
      const form = g.byte();
      if (form > 1) throw new RecordingFormatError(`${this.what} is corrupt: a clock reading of an unknown form`);
      const t = form === 0 ? (this.gapPrevUs += g.int()) / 1e6 : g.f64();
      // Numbered by the ticks started when read: never behind the last one.
      if (before < this.gapReadsBefore.length - 1)
        throw new RecordingFormatError(`${this.what} is corrupt: the clock readings go back in ticks`);
      while (this.gapReadsBefore.length <= before) this.gapReadsBefore.push(NO_READS);
      if (this.gapReadsBefore[before] === NO_READS) this.gapReadsBefore[before] = [];
      (this.gapReadsBefore[before] as number[]).push(t);
    }
    this.gapsAt = g.pos;
  }
}

/**
 * Decodes and checks a recording's streams (RunLogReader, read once). `what` names the file
 * in errors. `openTick`: the streams end with the start of a tick that was running when they
 * were taken (RecordedStreams.openTick): its time and inputs are read, and `tickEnds` has one
 * tick fewer.
 */
export function readRunLog(
  events: Uint8Array,
  gaps: Uint8Array,
  payload: Buffer,
  what: string,
  openTick = false,
  openTickTasks?: OpenTickTasks,
): RunLog {
  return new RunLogReader(what).read(
    wholeRecording({
      events: Buffer.from(events.buffer, events.byteOffset, events.length),
      gaps,
      payload,
      openTick,
      ...(openTickTasks !== undefined ? { openTickTasks } : {}),
    }),
  );
}
