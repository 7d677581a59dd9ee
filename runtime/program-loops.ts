// Program loops: the loops, threads and processes a program runs itself instead of the
// runtime's EventLoop (the chapter's callback and generator selector loops, the article's
// timer loop and trampoline, a busy retry loop, pools of threads and processes). Each one
// announces itself here while it runs and describes its own state under the `inspect`
// symbol, so the inspector and the host can show it (its registered sockets and their
// callbacks, its ready list, its timers, its threads and processes) without reading any
// private field, the way runtime/inspection.ts does for the runtime's own objects.
//
// Invariants: an announced loop is withdrawn when it closes (the withdraw function is
// idempotent), so the registry holds only live loops; describing a loop never changes it and
// costs nothing until asked; the registry is per process (one program runs in a host at a time).

import { inspect, inspectResource } from './inspection';
import { EVENT_READ, EVENT_WRITE, type DefaultSelector } from './selector';

/** A socket a program loop's selector watches, and what it calls when the socket is ready. */
export interface ProgramLoopSocket {
  fd: number;
  /** 'read', 'write' or 'read+write'. */
  events: string;
  /** The callback's name (a bound method reads "bound connected"). */
  callback: string;
  /** The socket's own description (its peer and state). */
  socket: string;
}

/** A timer of a program loop: when it is due, from now, and what it calls. */
export interface ProgramLoopTimer {
  dueInMs: number;
  callback: string;
}

/** A thread or process a program started to do its blocking work. */
export interface ProgramLoopWorker {
  kind: 'thread' | 'process';
  /** 'thread 3', 'process 12345', 'this thread'. */
  name: string;
  /** What it does now: 'idle', 'fetching /page/3 (blocked in recv)', 'exited: ...'. */
  state: string;
}

/** What a program loop says of itself. */
export interface ProgramLoopInspection {
  /** 'selector', 'timers', 'trampoline', 'busy', 'threads' or 'processes'. */
  readonly kind: string;
  /** One line: what this loop is ("the callback crawl's select loop"). */
  readonly title: string;
  /** The callback or step running now (null: none, or the loop waits). */
  running(): string | null;
  /** Callbacks or task steps ready to run, in the order they will run. */
  ready(): string[];
  sockets(): ProgramLoopSocket[];
  /** Timers not yet due, soonest first. */
  timers(): ProgramLoopTimer[];
  workers(): ProgramLoopWorker[];
  /** Other facts of the loop's own (tries wasted, turns run), one line each. */
  notes(): string[];
}

export interface InspectableProgramLoop {
  [inspect](): ProgramLoopInspection;
}

const live = new Set<InspectableProgramLoop>();

/** Announces a running loop; returns what withdraws it (call it when the loop closes). */
export function announceProgramLoop(loop: InspectableProgramLoop): () => void {
  live.add(loop);
  return () => {
    live.delete(loop);
  };
}

/** Runs `run` with `loop` announced, withdrawing it when `run` settles. */
export async function whileAnnounced<T>(loop: InspectableProgramLoop, run: () => Promise<T>): Promise<T> {
  const withdraw = announceProgramLoop(loop);
  try {
    return await run();
  } finally {
    withdraw();
  }
}

/** The program loops running now, in the order they were announced. */
export function programLoops(): ProgramLoopInspection[] {
  return [...live].map((l) => l[inspect]());
}

/** A callback's name for a description. */
export function callbackName(fn: unknown): string {
  if (typeof fn !== 'function') return String(fn);
  return fn.name === '' ? 'an anonymous callback' : fn.name;
}

/** The sockets a selector watches, with the callback each registration's data holds. */
export function selectorSockets(selector: DefaultSelector): ProgramLoopSocket[] {
  return [...selector.getMap().values()].map((key) => ({
    fd: key.fd,
    events: [key.events & EVENT_READ ? 'read' : null, key.events & EVENT_WRITE ? 'write' : null]
      .filter((w) => w !== null)
      .join('+'),
    callback: callbackName(key.data),
    socket: inspectResource(key.fileobj)?.description() ?? `fd ${key.fd}`,
  }));
}
