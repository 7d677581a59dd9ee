// The program loops of a line stop (the host's programLoops: a hand-made loop's sockets,
// ready list and timers, a program's threads and processes) as DAP scopes and variables: one
// scope per loop, named after it, whose variables are what runs now, the ready list, the
// sockets with their callbacks, the timers, the threads or processes and the loop's notes.
//
// No vscode import; pure mapping. `refOf` gives the variablesReference of a part (the session
// keeps the references, valid for one stop).

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { ProgramLoopState } from '../../protocol/host-protocol';

export type ProgramLoopPart = 'loop' | 'ready' | 'sockets' | 'timers' | 'workers';

function leaf(name: string, value: string): DebugProtocol.Variable {
  return { name, value, variablesReference: 0 };
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The scope of one loop. */
export function programLoopScope(loop: ProgramLoopState, ref: number): DebugProtocol.Scope {
  return { name: `Program loop: ${loop.title}`, variablesReference: ref, expensive: false };
}

/** The variables of a part of one loop. */
export function programLoopVariables(
  loop: ProgramLoopState,
  part: ProgramLoopPart,
  refOf: (part: ProgramLoopPart) => number,
): DebugProtocol.Variable[] {
  switch (part) {
    case 'loop': {
      const out: DebugProtocol.Variable[] = [leaf('running', loop.running ?? '(nothing: between callbacks)')];
      out.push({
        name: 'ready',
        value: plural(loop.ready.length, 'entry', 'entries'),
        variablesReference: loop.ready.length > 0 ? refOf('ready') : 0,
      });
      if (loop.sockets.length > 0 || loop.kind === 'selector' || loop.kind === 'busy')
        out.push({
          name: 'sockets',
          value: plural(loop.sockets.length, 'socket registered', 'sockets registered'),
          variablesReference: loop.sockets.length > 0 ? refOf('sockets') : 0,
        });
      out.push({
        name: 'timers',
        value: plural(loop.timers.length, 'timer', 'timers'),
        variablesReference: loop.timers.length > 0 ? refOf('timers') : 0,
      });
      if (loop.workers.length > 0)
        out.push({
          name: loop.kind === 'processes' ? 'processes' : 'threads',
          value: String(loop.workers.length),
          variablesReference: refOf('workers'),
        });
      for (const [i, note] of loop.notes.entries())
        out.push(leaf(loop.notes.length === 1 ? 'note' : `note ${i + 1}`, note));
      return out;
    }
    case 'ready':
      return loop.ready.map((r, i) => leaf(String(i), r));
    case 'sockets':
      return loop.sockets.map((s) => leaf(`fd ${s.fd}`, `${s.events} → ${s.callback}: ${s.socket}`));
    case 'timers':
      return loop.timers.map((t, i) => leaf(String(i), `in ${Math.round(t.dueInMs)} ms → ${t.callback}`));
    case 'workers':
      return loop.workers.map((w) => leaf(w.name, w.state));
  }
}
