// How a task's CancelOrigin reads to a person, the same in the inspector panel and in the
// debug adapter's variables: "the inspector", "the debugger", "the CLI", "the crawl
// deadline", "Task-3 (#3)".
//
// Invariants:
// - Every kind has its own words; an unknown origin never reads like a tool's or a task's.
// - A task origin is named by the caller's `taskLabel` (each view names tasks its own way).

import type { CancelOrigin } from './host-protocol';

export function cancelOriginLabel(origin: CancelOrigin, taskLabel: (taskId: number) => string): string {
  switch (origin.kind) {
    case 'task':
      return taskLabel(origin.taskId);
    case 'inspector':
      return 'the inspector';
    case 'debugger':
      return 'the debugger';
    case 'cli':
      return 'the CLI';
    case 'deadline':
      return 'the crawl deadline';
    case 'unknown':
      return 'unknown (outside any task: a callback or a timer)';
  }
}
