// StopCache: what the requests of one stop share: the host reads asked once per stop (a task's
// detail, the real frames of a line stop, the program's own loops there) and the frame ids handed
// to the client (frameRefs: what each shows), read by stacks (session-threads.ts) and by scopes,
// variables and evaluate (session-variables.ts).
//
// Invariants: valid for the current stop only: everything is dropped by SessionCore.invalidate;
// a read that fails is forgotten (asked again next time), one that succeeds is asked once.

import type { LineFrameInfo, ProgramLoopState, TaskDetail } from '../../protocol/host-protocol';
import type { FrameRef } from './dap-mapping';
import type { SessionCore } from './session-core';

export class StopCache {
  constructor(private readonly core: SessionCore) {
    core.onInvalidate(() => {
      this.details = new Map();
      this.lineStack = null;
      this.programLoops = null;
      this.frameRefs.clear();
    });
  }

  private details = new Map<string, Promise<TaskDetail>>();

  /** At a stop on a line: the real frames (asked once per stop). */
  private lineStack: Promise<{ taskId: number | null; frames: LineFrameInfo[] }> | null = null;

  /** The program loops at the current line stop (asked once per stop). */
  private programLoops: Promise<ProgramLoopState[]> | null = null;

  /** What each frame id handed out at this stop shows (session-threads.ts frameIdFor sets them). */
  readonly frameRefs = new Map<number, FrameRef>();

  detailOf(taskId: number, locals: boolean): Promise<TaskDetail> {
    const withLocals = this.details.get(`${taskId}:true`);
    if (withLocals !== undefined) return withLocals;
    const key = `${taskId}:${locals}`;
    let p = this.details.get(key);
    if (p === undefined) {
      const host = this.core.requireHost();
      p = host.endpoint.request('taskDetail', { taskId, locals });
      this.details.set(key, p);
      p.then((d) => this.core.tasks.upsert(d.task)).catch(() => this.details.delete(key));
    }
    return p;
  }

  /** The real frames of the current line stop. */
  lineFrames(): Promise<{ taskId: number | null; frames: LineFrameInfo[] }> {
    this.lineStack ??= this.core.requireHost().endpoint.request('lineStack', {});
    return this.lineStack;
  }

  /** The loops, threads and processes the program runs itself, at this line stop. */
  loopsAtStop(): Promise<ProgramLoopState[]> {
    this.programLoops ??= this.core
      .requireHost()
      .endpoint.request('programLoops', {})
      .then((r) => r.loops);
    return this.programLoops;
  }
}
