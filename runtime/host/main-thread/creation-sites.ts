// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// CreationSites: where each task of a loop was created, as the task detail's `createdAt` (the
// debugger's "created by" frame and the panel's "Created at"). A stack is captured when the
// task is created and formatted only when a view asks. The live run (run.ts) and a replay of it
// (run-rewind.ts, for a past moment) keep one each, so a past moment shows the creation site the
// live run showed: the replay creates each task from the same line of the same code.
//
// Invariants: a capture costs one short stack (16 frames), never formatted unless asked; the
// site is the first frame of the program's code, mapped to its source (TypeScript) position,
// skipping Node's, the host's, the inspector's and the runtime core's own frames; a task with no
// capture (created before observing began, or with inspection off) has no site (null).

import type { SourcePosition } from '../../../protocol/host-protocol';
import type { Task } from '../../task';
import { parseStack } from '../../inspect/traces';
import { sourcePositions } from '../../inspect/source-positions';

/**
 * The host's and the inspector's files, and the samples' runOnLoop (the sample's line that calls it is): no
 * creation site.
 */
const HOST_FILES = /[\\/]runtime[\\/](inspect|host)[\\/]|[\\/]runtime[\\/]samples[\\/]run-on-loop\.ts$/;
/** The runtime core's own files (the loop, tasks, the observer fanout): no creation site. */
const CORE_FILE = /[\\/]runtime[\\/][^\\/]+\.[cm]?ts$/;

interface CapturedStack {
  stack?: string;
}

export class CreationSites {
  private readonly stacks = new WeakMap<Task<unknown>, CapturedStack>();

  /** Called as the task is created (a loop observer's taskCreated): keeps the stack of its creation. */
  capture(task: Task<unknown>): void {
    const captured: CapturedStack = {};
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 16;
    Error.captureStackTrace(captured);
    Error.stackTraceLimit = limit;
    this.stacks.set(task, captured);
  }

  /** The first program frame of the stack captured when the task was created; null when none was. */
  siteOf(task: Task<unknown>): SourcePosition | null {
    const stack = this.stacks.get(task)?.stack;
    if (typeof stack !== 'string') return null;
    const positions = sourcePositions();
    for (const l of parseStack(stack).lines) {
      if (l.file === null || l.line === null || l.resume || l.file.startsWith('node:')) continue;
      let file = l.file;
      let line = l.line;
      let column = l.column ?? 1;
      if (/\.[cm]?js$/.test(file)) {
        const p = positions.map(file, line - 1, column - 1);
        if (p.mapped) ({ file, line, column } = p);
      }
      if (HOST_FILES.test(file) || CORE_FILE.test(file)) continue;
      return { file, line, column };
    }
    return null;
  }
}
