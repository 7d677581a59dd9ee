// The adapter's messages to the client in arrival order (responses among events), as structured
// entries a test compares whole with deepEqual: the mirrored room tests (move-answers.test.ts,
// past-travel.test.ts, ...) assert what a request caused and in which order (a move's answer before
// its `stopped`, one response per request, no stop of a refused move).
//
// Invariants: an entry keeps only the fields a room decides (a stop's reason, thread and words; a
// refusal's error id, text and whether the user sees it); reading the log changes nothing.

import type { DapClient } from './dap-client';

/** A place in the log: the events and responses received before it. */
export interface LogMark {
  events: number;
  answers: number;
}

/** A refusal's error, as DebugSession.sendErrorResponse puts it in the body. */
export interface LoggedError {
  id: number;
  format: string;
  showUser: boolean;
}

export type LoggedMessage =
  | { response: string; success: true }
  | { response: string; success: false; error: LoggedError }
  | { event: 'stopped'; reason: string; threadId: number; description: string | null; relabel?: true }
  | { event: 'continued'; threadId: number; all: boolean }
  | { event: 'output'; category: string; output: string }
  | { event: string };

/** The log's end now: what comes later is logged from here. */
export function logMark(dap: DapClient): LogMark {
  return { events: dap.events.length, answers: dap.answers.length };
}

/**
 * Sends a move (`command` with `args`) and waits for the `stopped` it causes (at most `timeoutMs`); the log's
 * mark before it, for logSince.
 */
export async function markedMove(dap: DapClient, command: string, args: unknown, timeoutMs: number): Promise<LogMark> {
  const mark = logMark(dap);
  await dap.requestRaw(command, args);
  await dap.waitForEvent('stopped', { from: mark.events, timeoutMs });
  return mark;
}

function eventEntry(event: string, body: Record<string, unknown>): LoggedMessage {
  switch (event) {
    case 'stopped': {
      const stop: LoggedMessage = {
        event,
        reason: String(body.reason),
        threadId: Number(body.threadId),
        description: typeof body.description === 'string' ? body.description : null,
      };
      // A stop that only relabels a thread (the loop's row after a task's stop: focus kept, not every
      // thread): marked, so a test tells it from a stop of its own (dap-client.ts waitForEvent).
      return body.preserveFocusHint === true && body.allThreadsStopped !== true ? { ...stop, relabel: true } : stop;
    }
    case 'continued':
      return { event, threadId: Number(body.threadId), all: body.allThreadsContinued === true };
    case 'output':
      return { event, category: String(body.category ?? 'console'), output: String(body.output) };
    default:
      return { event };
  }
}

/**
 * The messages received since `mark`, in arrival order. `only`: the events kept (responses are
 * always kept); `loadedSource`, `thread` relabels and the Coroutines view's refresh are noise to most
 * room tests, so a test names the events it asserts.
 */
export function logSince(dap: DapClient, mark: LogMark, only?: readonly string[]): LoggedMessage[] {
  const log: LoggedMessage[] = [];
  let event = mark.events;
  const eventsUpTo = (end: number): void => {
    for (; event < end; event++) {
      const e = dap.events[event]!;
      if (only === undefined || only.includes(e.event)) log.push(eventEntry(e.event, e.body));
    }
  };
  for (const a of dap.answers.slice(mark.answers)) {
    eventsUpTo(a.afterEvents);
    if (a.success) log.push({ response: a.command, success: true });
    else {
      const error = a.body.error as { id?: unknown; format?: unknown; showUser?: unknown } | undefined;
      log.push({
        response: a.command,
        success: false,
        error: { id: Number(error?.id), format: String(error?.format), showUser: error?.showUser === true },
      });
    }
  }
  eventsUpTo(dap.events.length);
  return log;
}

/** The moves' events: the ones a move's answer must come before (and a refused move never sends). */
export const MOVE_EVENTS: readonly string[] = ['stopped', 'continued', 'output'];
