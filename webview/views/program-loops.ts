// The program's own loops, above the task table: for a sample that runs a loop, threads or
// processes of its own instead of the runtime's loop (the callbacks, timers loop, trampoline,
// future + task, busy non-blocking, blocking samples), what that loop holds at this moment:
// the callback running, the ready list, the sockets its selector watches with their callbacks,
// the timers, the threads or processes and what each does. Hidden when there is none.
//
// Every text shown comes from the program (socket peers, page paths): it goes in as text
// nodes only (h() never parses HTML).

import type { ProgramLoopState } from '../../protocol/host-protocol';
import type { AppContext } from '../app-context';
import { h, replace } from '../dom';

function list(title: string, items: string[], empty: string): HTMLElement {
  return h(
    'div',
    { class: 'program-loop-part' },
    h('div', { class: 'program-loop-part-title' }, `${title} (${items.length})`),
    items.length === 0 ? h('div', { class: 'muted' }, empty) : h('ul', null, ...items.map((i) => h('li', null, i))),
  );
}

function loopElement(loop: ProgramLoopState): HTMLElement {
  const parts: HTMLElement[] = [
    h(
      'div',
      { class: 'program-loop-running' },
      `Running: ${loop.running ?? 'nothing (between callbacks, or waiting)'}`,
    ),
  ];
  parts.push(list('Ready', loop.ready, 'nothing ready'));
  if (loop.kind === 'selector' || loop.kind === 'busy' || loop.sockets.length > 0) {
    parts.push(
      list(
        'Sockets',
        loop.sockets.map((s) => `fd ${s.fd} ${s.events} → ${s.callback}: ${s.socket}`),
        'no socket registered',
      ),
    );
  }
  parts.push(
    list(
      'Timers',
      loop.timers.map((t) => `in ${Math.round(t.dueInMs)} ms → ${t.callback}`),
      'no timer',
    ),
  );
  if (loop.workers.length > 0)
    parts.push(
      list(
        loop.kind === 'processes' ? 'Processes' : 'Threads',
        loop.workers.map((w) => `${w.name}: ${w.state}`),
        '',
      ),
    );
  for (const note of loop.notes) parts.push(h('div', { class: 'muted' }, note));
  return h(
    'section',
    { class: 'program-loop', attrs: { 'aria-label': `Program loop: ${loop.title}` } },
    h('div', { class: 'view-title' }, `The program's own loop: ${loop.title}`),
    ...parts,
  );
}

export class ProgramLoopsView {
  readonly element: HTMLElement;
  /** The list last shown: the panel renders every frame, this only when its data changed. */
  private shown: ProgramLoopState[] | null = null;

  constructor(private readonly app: AppContext) {
    this.element = h('div', { class: 'program-loops', attrs: { 'aria-label': "The program's own loops" } });
  }

  render(): void {
    const loops = this.app.data.programLoops;
    if (loops === this.shown) return;
    this.shown = loops;
    this.element.hidden = loops.length === 0;
    replace(this.element, ...loops.map(loopElement));
  }
}
