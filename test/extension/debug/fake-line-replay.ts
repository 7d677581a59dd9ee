// A fake host's line replay for the walk tests (line-walks.test.ts, session-changes.test.ts): a live
// run held on a line of task 2 in tick 7, whose lineStep / lineStepBack move one line down / up
// (each landing's `paused` after the answer, as the host sends it), and whose lineStack and
// lineEvaluate read `count` in the task's one frame, `worker`: 1 up to line 13, 2 from line 14 on.
//
// Invariants: a step past `lastLine` meets a loop breakpoint's hit (off the task's lines) and moves
// nothing; the fake decides no view, it only answers and emits.

import type { HostEvents, PastLineLanding, SourcePosition } from '../../../protocol/host-protocol';
import type { WatchedValue } from '../../../extension/debug/value-changes';
import { FakeRun, snapshotAt, timelineOf } from './fake-debug-host';

export const REPLAYED_FILE = '/work/prog.ts';

/** The value the walks watch: `count` in the outermost frame, `worker`. */
export const WATCHED: WatchedValue = { expression: 'count', functionName: 'worker', depth: 0 };

export function lineOf(line: number): SourcePosition {
  return { file: REPLAYED_FILE, line, column: 3 };
}

/** As the host words a past line (position-events.ts says it in the console). */
export function pastLineWords(line: number): string {
  return `task #2 on a past line at prog.ts:${line} (tick 7, replayed)`;
}

/** The run held on `stopLine`, walked up to `lastLine`; `steps`: the line moves asked so far. */
export function lineReplayRun(stopLine: number, lastLine: number): { run: FakeRun; steps: () => number } {
  const stop: HostEvents['paused'] = {
    reason: 'breakpoint',
    tick: 7,
    taskId: 2,
    description: `Task #2 "worker-2" hit a breakpoint at prog.ts:${stopLine}`,
    line: lineOf(stopLine),
  };
  const run = new FakeRun('paused');
  run.lastPause = stop;
  run.endpoint.serve('snapshot', () => snapshotAt(7, true));
  run.endpoint.serve('timeline', () => timelineOf(7, 7));
  let line = stopLine;
  let steps = 0;
  const show = (moment: string | undefined): void =>
    run.endpoint.emit('paused', {
      reason: 'step',
      tick: 7,
      taskId: 2,
      description: pastLineWords(line),
      line: lineOf(line),
      pastLine: true,
      ...(moment === undefined ? {} : { moment }),
    });
  run.endpoint.serve('lineStepBack', (p) => {
    steps++;
    line -= p.lines ?? 1;
    setImmediate(() => show(p.moment));
    return { landed: 'line', line: lineOf(line) };
  });
  run.endpoint.serve('lineStep', (p): { landing?: PastLineLanding } => {
    steps++;
    if (line === lastLine)
      return { landing: { landed: 'tick', tick: 7, taskId: 3, description: 'Task #3 hit a breakpoint' } };
    line++;
    setImmediate(() => show(p.moment));
    return { landing: { landed: 'line', line: lineOf(line) } };
  });
  run.endpoint.serve('lineStack', () => ({
    taskId: 2,
    frames: [{ index: 0, name: 'worker', position: lineOf(line), generated: null, scopes: [] }],
  }));
  run.endpoint.serve('lineEvaluate', () => ({ value: line <= 13 ? '1' : '2', type: 'number', handle: 0 }));
  return { run, steps: () => steps };
}
