// Runs on a runtime host's line debugger worker thread (pure: no inspector, no I/O). Where a line
// stop is that no task of the runtime's loop runs, said to the user (a refused Step Back or
// Reverse Continue): in a callback of the loop's tick, a message from one of the program's
// worker threads, or Node's event loop otherwise.
//
// Invariant: the sentence names the thread and says who runs the stopped code, from the stop's
// call frames only (innermost first); the stopped frame is the first one of the program's code.

import { basename } from 'node:path';

/**
 * One call frame of the stop as read here: its function, its script's URL, its position as the user reads it
 * (TypeScript when mapped).
 */
export interface StopFrame {
  readonly functionName: string;
  readonly url: string;
  readonly file: string | null;
  readonly line: number | null;
}

/** The runtime loop's own tick (loop.ts): a callback it runs. */
const RUNTIME_LOOP_FILE = /[\\/]runtime[\\/]loop\.[cm]?[jt]s$/;
/**
 * Node's dispatch of a worker thread's message to the main thread: its script (when the inspector lists
 * Node's own), else its function (a MessagePort's event dispatch, Node 20 to 22).
 */
const WORKER_MESSAGE_SCRIPT = /^node:internal\/(worker|per_context\/messageport)/;
const WORKER_MESSAGE_DISPATCH = /kHybridDispatch|kOnMessage/;
/** Code that is not the program's: Node's own, the runtime's and the host's. */
const NOT_PROGRAM =
  /^node:|[\\/]runtime[\\/][^\\/]+\.[cm]?[jt]s$|[\\/]runtime[\\/](inspect|host|record)[\\/]|[\\/]protocol[\\/]/;

/** "onAnswer at fib-threads.ts:31", or null when no frame of the program's code is on the stack. */
function stoppedFrame(frames: readonly StopFrame[]): string | null {
  const f = frames.find((x) => x.file !== null && !NOT_PROGRAM.test(x.url) && !NOT_PROGRAM.test(x.file));
  if (f === undefined) return null;
  return `${f.functionName === '' ? '(anonymous)' : f.functionName} at ${basename(f.file!)}${f.line === null ? '' : `:${f.line}`}`;
}

/**
 * "the stop (onAnswer at fib-threads.ts:31) is on the main thread (the debugger's "event loop"
 * thread), in a handler of a message from a worker thread, which Node's event loop runs between
 * the runtime loop's ticks".
 */
export function stopPlace(frames: readonly StopFrame[], tick: number): string {
  const at = stoppedFrame(frames);
  const thread = `the stop${at === null ? '' : ` (${at})`} is on the main thread (the debugger's "event loop" thread)`;
  if (frames.some((f) => f.file !== null && RUNTIME_LOOP_FILE.test(f.file)))
    return `${thread}, in a callback the runtime's loop runs in tick ${tick}`;
  if (
    frames.some(
      (f) => WORKER_MESSAGE_SCRIPT.test(f.url) || (f.file === null && WORKER_MESSAGE_DISPATCH.test(f.functionName)),
    )
  )
    return `${thread}, in a handler of a message from one of the program's worker threads, which Node's event loop runs between the runtime loop's ticks`;
  return `${thread}, in code Node's event loop runs outside the runtime loop's ticks (a loop of the program's own, a Node timer or I/O handler, or its code around the runtime's loop)`;
}
