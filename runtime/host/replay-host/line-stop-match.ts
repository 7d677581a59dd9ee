// Runs only on a line replay host's worker thread (a runtime host started with --line-replay). What a
// pause of the replayed main thread is, to a walk (past-line-walk.ts) or a search's marker
// (scan-breakpoints.ts): the entry of a step's lines it is on, and whether it is a given line stop.
//
// Invariants: a pause is a line stop only with the same frames at the same generated positions and the
// innermost frame's locals the same (a line run again in a loop is that stop only with the same locals).

import type { LineStopPrint } from '../../../protocol/host-protocol';
import type { LineDebugger, WalkFrame } from '../worker/line-debugger';
import type { PastLineEntry } from '../worker/past-lines';

/** The entry of a stop: its frames' functions, outermost first, and the innermost frame's line. */
export function entryOf(frames: readonly WalkFrame[], top: WalkFrame): PastLineEntry {
  return { chain: frames.map((f) => f.functionKey).reverse(), line: top.line };
}

/**
 * Whether the paused thread (its frames, the machinery left out) is at the line stop `print`:
 * the same frames at the same generated positions, and the innermost frame's locals the same
 * (a line run again in a loop is that stop only with the same locals).
 */
export async function isAtStop(
  dbg: LineDebugger,
  frames: readonly WalkFrame[],
  print: LineStopPrint,
): Promise<boolean> {
  const live = print.frames;
  if (frames.length !== live.length) return false;
  const samePositions = frames.every((f, i) => {
    const l = live[i]!;
    const p = f.position;
    return (
      p.url === l.url &&
      p.line === l.line &&
      p.column === l.column &&
      p.functionLine === l.functionLine &&
      p.functionColumn === l.functionColumn
    );
  });
  if (!samePositions) return false;
  const locals = await dbg.localsOf(frames[0]!.frame);
  return JSON.stringify(locals) === JSON.stringify(print.locals);
}
