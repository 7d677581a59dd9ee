// Where tasks are suspended, grouped by file and line, for the editor decorations
// (suspension-decorations.ts). Pure: no vscode import (unit-tested).
//
// Each task counts once per line: on its innermost frame's line as "waiting here", on each
// outer frame's line as "suspended in this call" (the frame delegates there with yield*).

import type { TaskSummary } from '../protocol/host-protocol';

export interface LineMark {
  file: string;
  /** 1-based. */
  line: number;
  /** Tasks whose innermost frame waits here. */
  waiting: Array<{ id: number; name: string; awaiting: string }>;
  /** Tasks whose outer frame delegates here. */
  delegating: Array<{ id: number; name: string; frame: string }>;
}

/** Groups frame positions by file and line. Pure. */
export function groupMarks(
  entries: Array<{ task: TaskSummary; frames: Array<{ name: string; file: string; line: number }> }>,
): Map<string, LineMark[]> {
  const byKey = new Map<string, LineMark>();
  for (const { task, frames } of entries) {
    const seen = new Set<string>();
    frames.forEach((f, i) => {
      const key = `${f.file}\u0000${f.line}`;
      if (seen.has(key)) return;
      seen.add(key);
      let m = byKey.get(key);
      if (m === undefined) byKey.set(key, (m = { file: f.file, line: f.line, waiting: [], delegating: [] }));
      if (i === frames.length - 1)
        m.waiting.push({
          id: task.id,
          name: task.name,
          awaiting: task.awaiting === null ? '' : `${task.awaiting.kind}`,
        });
      else m.delegating.push({ id: task.id, name: task.name, frame: f.name });
    });
  }
  const byFile = new Map<string, LineMark[]>();
  for (const m of byKey.values()) {
    const l = byFile.get(m.file) ?? [];
    l.push(m);
    byFile.set(m.file, l);
  }
  return byFile;
}

export function markLabel(m: LineMark): string {
  const n = m.waiting.length + m.delegating.length;
  return m.waiting.length > 0
    ? ` ‖ ${n} task${n === 1 ? '' : 's'} suspended here`
    : ` ‖ ${n} task${n === 1 ? '' : 's'} suspended in this call`;
}
