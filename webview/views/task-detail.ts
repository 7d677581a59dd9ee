// Task detail: the selected task's coroutine stack frame by frame (innermost first, as a
// debugger's call stack; a click on a frame shows its locals and opens its TypeScript line
// in the editor), the locals as an expandable tree (children fetched on demand with their
// handle), what the task awaits and who awaits it, where it was created, and its outcome or
// traceback.
//
// Invariants: a detail is re-fetched when the selection changes, and when the selected task
// changes in a snapshot (at most every REFRESH_MS); answers for a task no longer selected are
// dropped. Every string from the runtime goes through textContent.

import type { FrameInfo, SourcePosition, TaskDetail, TaskSummary, VariableInfo } from '../../protocol/host-protocol';
import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import { isTaskDetail, isVariableList } from '../../protocol/webview-protocol';
import { errorText, type AppContext } from '../app-context';
import { h, icon, iconButton, replace, type Child } from '../dom';
import { timelineJumps } from './timeline-jumps';
import { taskActions, type TaskAction } from '../state/task-actions';
import {
  baseName,
  formatCount,
  formatMs,
  isOpenable,
  positionText,
  shortPath,
  STATE_ICONS,
  STATE_LABELS,
} from '../state/format';

const REFRESH_MS = 400;

export class TaskDetailView {
  readonly element: HTMLElement;
  private detail: TaskDetail | null = null;
  private detailFor: number | null = null;
  private loading: number | null = null;
  private error: string | null = null;
  private lastFetch = 0;
  private refreshTimer: number | null = null;
  /** Open nodes of the locals tree by path (frame/name/name...), with the handle their children came from. */
  private readonly expanded = new Map<string, { handle: number; children: VariableInfo[] | 'loading' | string }>();

  constructor(private readonly app: AppContext) {
    this.element = h('section', { class: 'task-detail', attrs: { 'aria-label': 'Task detail' } });
  }

  /** The selected task changed in a snapshot, or the loop stopped: fetch again soon. */
  taskChanged(): void {
    const wait = Math.max(0, REFRESH_MS - (performance.now() - this.lastFetch));
    if (this.refreshTimer !== null) return;
    this.refreshTimer = window.setTimeout(() => {
      this.refreshTimer = null;
      const id = this.app.ui().selectedTask;
      if (id !== null) void this.fetch(id);
    }, wait);
  }

  /** Forgets the shown detail (a new run). */
  reset(): void {
    this.detail = null;
    this.detailFor = null;
    this.expanded.clear();
  }

  private async fetch(id: number): Promise<void> {
    this.loading = id;
    this.lastFetch = performance.now();
    try {
      const d: unknown = await this.app.client.request('taskDetail', { taskId: id });
      if (this.app.ui().selectedTask !== id) return;
      if (!isTaskDetail(d)) throw new Error('malformed task detail');
      if (this.detailFor !== id) this.expanded.clear();
      this.detail = d;
      this.detailFor = id;
      this.error = null;
    } catch (e) {
      if (this.app.ui().selectedTask !== id) return;
      this.error = errorText(e);
      if (this.detailFor !== id) this.detail = null;
    } finally {
      if (this.loading === id) this.loading = null;
      this.app.invalidate();
    }
  }

  render(): void {
    const id = this.app.ui().selectedTask;
    if (id === null) {
      replace(
        this.element,
        h(
          'div',
          { class: 'placeholder' },
          icon('debug-stackframe'),
          h('p', null, 'Select a task to see its coroutine stack, its locals and what it awaits.'),
        ),
      );
      return;
    }
    if (this.detailFor !== id && this.loading !== id) void this.fetch(id);
    const summary: TaskSummary | undefined =
      this.detailFor === id && this.detail !== null ? this.detail.task : this.app.model.get(id);
    // Prefer the newest summary from the table (the detail may be a moment older).
    const live = this.app.model.get(id) ?? summary;
    if (live === undefined) {
      replace(
        this.element,
        h('div', { class: 'placeholder' }, h('p', null, `Task #${id} is not in this run any more.`)),
      );
      return;
    }
    const d = this.detailFor === id ? this.detail : null;
    const actions = h('div', { class: 'detail-actions' });
    const offered = taskActions({
      state: live.state,
      phase: this.app.data.status.phase,
      viewingPast: this.app.viewingPast(),
      debugged: this.app.data.debugged,
    });
    for (const action of offered) actions.appendChild(this.actionButton(action, live));
    const header = h(
      'div',
      { class: 'detail-header' },
      icon(STATE_ICONS[live.state], `state-icon state-${live.state}`),
      h('h2', { class: 'detail-title' }, h('span', { class: 'task-id' }, `#${live.id}`), ' ', live.name),
      h('span', { class: `badge state-${live.state}` }, STATE_LABELS[live.state]),
      actions,
    );
    const facts = h('dl', { class: 'facts' });
    const fact = (label: string, ...value: Child[]): void => {
      facts.append(h('dt', null, label), h('dd', null, ...value));
    };
    fact('Steps', formatCount(live.steps));
    fact('Busy', live.busyMs === null ? 'not recorded' : formatMs(live.busyMs));
    if (live.sinceResumedMs !== null) fact('Since resumed', formatMs(live.sinceResumedMs));
    if (live.createdBy !== null) fact('Created by', this.taskLink(live.createdBy));
    if (d?.createdAt) fact('Created at', this.positionLink(d.createdAt));
    if (live.awaiting !== null) {
      fact(
        'Awaiting',
        h('span', { class: 'await-kind' }, live.awaiting.kind),
        ' ',
        h('span', { class: 'await-detail' }, live.awaiting.detail),
        live.awaiting.taskId !== undefined ? h('span', null, ' → ', this.taskLink(live.awaiting.taskId)) : null,
      );
    }
    if (live.awaitedBy.length > 0) fact('Awaited by', ...this.taskLinks(live.awaitedBy));
    if (d !== null && d.awaitChain.length > 0) fact('Await chain', ...this.taskLinks(d.awaitChain));
    if (live.outcome !== undefined) fact('Outcome', h('span', { class: `outcome state-${live.state}` }, live.outcome));
    if (live.cancelledBy !== undefined) {
      const by = live.cancelledBy;
      // A live task's cancel was asked and has not reached it yet (or it is unwinding).
      fact(
        live.state === 'cancelled' || live.state === 'done' || live.state === 'failed'
          ? 'Cancelled by'
          : 'Cancel requested by',
        by.kind === 'task'
          ? this.taskLink(by.taskId)
          : h(
              'span',
              { class: `cancel-origin origin-${by.kind}` },
              cancelOriginLabel(by, (taskId) => `#${taskId}`),
            ),
      );
    }

    const parts: Child[] = [header, facts];
    const jumps = timelineJumps(this.app, live.id);
    if (jumps !== null) parts.push(jumps);
    if (this.error !== null && this.detailFor !== id)
      parts.push(h('div', { class: 'inline-error' }, icon('warning'), ' ', this.error));
    parts.push(this.stackSection(live, d));
    if (d?.traceback)
      parts.push(
        h(
          'section',
          { class: 'detail-section' },
          h('h3', null, 'Traceback'),
          h('pre', { class: 'traceback-text' }, d.traceback.text),
        ),
      );
    replace(this.element, ...parts);
  }

  private actionButton(action: TaskAction, task: TaskSummary): HTMLButtonElement {
    switch (action) {
      case 'stepTask':
        return iconButton(
          'debug-step-into',
          `Step task #${task.id}: run until it suspends again`,
          () => this.control(() => this.app.client.request('control', { action: 'stepTask', taskId: task.id })),
          { text: 'Step Task', id: 'step-task' },
        );
      case 'cancel':
        return iconButton(
          'circle-slash',
          `Cancel task #${task.id}`,
          () => this.control(() => this.app.client.request('cancelTask', { taskId: task.id })),
          { text: 'Cancel', id: 'cancel-task' },
        );
      case 'follow':
        return iconButton(
          'debug-step-over',
          `Follow task #${task.id} in the debugger: Continue, Reverse Continue and the steps move it alone`,
          () => this.app.followTask(task.id),
          { text: 'Follow This Task', id: 'follow-task' },
        );
    }
  }

  private control(fn: () => Promise<unknown>): void {
    fn().then(
      () => this.taskChanged(),
      (e: unknown) => this.app.notify(errorText(e), 'error'),
    );
  }

  private taskLink(id: number): HTMLElement {
    const t = this.app.model.get(id);
    return h(
      'a',
      {
        class: 'task-link',
        attrs: { href: '#', role: 'link', 'data-task': String(id) },
        title: t !== undefined ? `${t.name} (${t.state})` : `task #${id}`,
        on: {
          click: (e) => {
            e.preventDefault();
            this.app.showTask(id);
          },
        },
      },
      `#${id}${t !== undefined ? ` ${t.name}` : ''}`,
    );
  }

  private taskLinks(ids: readonly number[]): Child[] {
    const out: Child[] = [];
    ids.slice(0, 50).forEach((id, i) => {
      if (i > 0) out.push(', ');
      out.push(this.taskLink(id));
    });
    if (ids.length > 50) out.push(` … ${ids.length - 50} more`);
    return out;
  }

  private positionLink(p: SourcePosition): HTMLElement {
    if (!isOpenable(p)) return h('span', { class: 'position' }, positionText(p));
    return h(
      'a',
      {
        class: 'position-link',
        attrs: { href: '#', role: 'link' },
        title: `${p.file}:${p.line}:${p.column}`,
        on: {
          click: (e) => {
            e.preventDefault();
            this.app.openSource(p);
          },
        },
      },
      `${shortPath(p.file)}:${p.line}`,
    );
  }

  private stackSection(t: TaskSummary, d: TaskDetail | null): HTMLElement {
    const section = h('section', { class: 'detail-section stack-section' });
    const frames: FrameInfo[] = d !== null ? d.frames : [];
    if (d !== null && d.fromLog === true && frames.length > 0) return this.namesFromLog(section, frames);
    section.appendChild(
      h(
        'h3',
        null,
        'Coroutine stack',
        h(
          'span',
          { class: 'section-note' },
          frames.length > 0 ? ` ${frames.length} frame${frames.length === 1 ? '' : 's'}, innermost first` : '',
        ),
      ),
    );
    if (frames.length === 0) {
      if (t.frames.length > 0) {
        const list = h('ol', { class: 'frame-list summary-frames' });
        for (const name of [...t.frames].reverse())
          list.appendChild(
            h('li', { class: 'frame' }, icon('debug-stackframe'), h('span', { class: 'frame-name' }, name)),
          );
        section.appendChild(list);
      }
      section.appendChild(
        h(
          'p',
          { class: 'muted' },
          this.loading === t.id
            ? 'Loading frames…'
            : t.state === 'done' || t.state === 'failed' || t.state === 'cancelled'
              ? 'The task has finished: no frames to inspect.'
              : 'No frames (inspection off, or not started yet).',
        ),
      );
      return section;
    }
    const ui = this.app.ui();
    const selected =
      ui.selectedFrame !== null && ui.selectedFrame < frames.length ? ui.selectedFrame : frames.length - 1;
    const list = h('ol', { class: 'frame-list', attrs: { role: 'listbox', 'aria-label': 'Coroutine stack' } });
    for (let i = frames.length - 1; i >= 0; i--) {
      const f = frames[i]!;
      const innermost = i === frames.length - 1;
      const row = h(
        'li',
        {
          class: `frame${i === selected ? ' selected' : ''}${isOpenable(f.position) ? ' openable' : ''}`,
          attrs: {
            role: 'option',
            tabindex: '0',
            'aria-selected': String(i === selected),
            'data-frame': String(i),
            'data-line': f.position !== null ? String(f.position.line) : '',
          },
          title: f.position !== null ? `${f.position.file}:${f.position.line}:${f.position.column}` : f.name,
          on: {
            click: () => this.frameClicked(f),
            keydown: (e) => {
              if (e.key === 'Enter') this.frameClicked(f);
            },
          },
        },
        icon(innermost ? 'debug-stackframe-focused' : 'debug-stackframe', 'frame-icon'),
        h('span', { class: 'frame-name' }, f.name),
        h(
          'span',
          { class: 'frame-pos' },
          f.position !== null ? `${baseName(f.position.file)}:${f.position.line}` : 'unknown position',
        ),
      );
      list.appendChild(row);
    }
    section.appendChild(list);
    const frame = frames[selected]!;
    const locals = h(
      'section',
      { class: 'detail-section locals-section' },
      h('h3', null, 'Locals', h('span', { class: 'section-note' }, ` of ${frame.name}`)),
    );
    if (frame.locals.length === 0) locals.appendChild(h('p', { class: 'muted' }, 'No locals.'));
    else locals.appendChild(this.variableTree(frame.locals, 0));
    const wrap = h('div', null, section, locals);
    return wrap;
  }

  /**
   * A past tick known from the recording's log, its replay under way (or failed): the frames by
   * function name, innermost first, and what is being done about their positions and locals.
   */
  private namesFromLog(section: HTMLElement, frames: readonly FrameInfo[]): HTMLElement {
    const status = this.app.data.status;
    section.appendChild(
      h(
        'h3',
        null,
        'Coroutine stack',
        h(
          'span',
          { class: 'section-note' },
          ` ${frames.length} frame${frames.length === 1 ? '' : 's'}, innermost first, from the recording`,
        ),
      ),
    );
    const list = h('ol', { class: 'frame-list summary-frames', attrs: { 'aria-label': 'Coroutine stack' } });
    for (let i = frames.length - 1; i >= 0; i--)
      list.appendChild(
        h(
          'li',
          { class: 'frame', attrs: { 'data-frame': String(i) } },
          icon(i === frames.length - 1 ? 'debug-stackframe-focused' : 'debug-stackframe', 'frame-icon'),
          h('span', { class: 'frame-name' }, frames[i]!.name),
        ),
      );
    section.appendChild(list);
    const tick = status.viewedTick;
    if (status.viewedReplayError !== undefined) {
      section.appendChild(
        h(
          'div',
          { class: 'inline-error replay-state', attrs: { role: 'status' } },
          icon('warning'),
          ` No positions or locals: the replay to tick ${tick ?? '?'} failed: ${status.viewedReplayError}`,
        ),
      );
    } else {
      section.appendChild(
        h(
          'p',
          { class: 'muted replay-state', attrs: { role: 'status', 'aria-live': 'polite' } },
          icon('loading', 'codicon-modifier-spin'),
          ` Replaying to tick ${tick ?? '?'}… positions and locals follow.`,
        ),
      );
    }
    return section;
  }

  private frameClicked(f: FrameInfo): void {
    this.app.dispatch({ type: 'selectFrame', index: f.index });
    if (isOpenable(f.position)) this.app.openSource(f.position);
  }

  private variableTree(
    vars: readonly VariableInfo[],
    depth: number,
    parentPath = `${this.app.ui().selectedFrame ?? 'top'}`,
  ): HTMLElement {
    const ul = h('ul', { class: 'var-tree', attrs: { role: depth === 0 ? 'tree' : 'group' } });
    for (const v of vars) {
      const path = `${parentPath}/${v.name}`;
      const entry = v.handle > 0 ? this.expanded.get(path) : undefined;
      const open = entry !== undefined;
      // Handles change with every fetch of the detail: reload an open node under its new handle.
      if (entry !== undefined && entry.handle !== v.handle) this.load(path, v.handle);
      const twisty = v.handle > 0 ? icon(open ? 'chevron-down' : 'chevron-right', 'twisty') : icon('blank', 'twisty');
      const row = h(
        'div',
        {
          class: `var-row${v.handle > 0 ? ' expandable' : ''}`,
          attrs: { role: 'treeitem', tabindex: '0', ...(v.handle > 0 ? { 'aria-expanded': String(open) } : {}) },
          on: {
            click: () => this.toggle(path, v),
            keydown: (e) => {
              if (e.key === 'Enter' || e.key === ' ' || e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
                e.preventDefault();
                this.toggle(path, v);
              }
            },
          },
        },
        twisty,
        h('span', { class: 'var-name' }, v.name),
        h('span', { class: 'var-sep' }, ': '),
        h('span', { class: `var-value type-${v.type.replace(/[^\w-]/g, '')}` }, v.value),
        v.type !== '' ? h('span', { class: 'var-type' }, v.type) : null,
      );
      const li = h('li', null, row);
      const children = entry?.children;
      if (children === 'loading') li.appendChild(h('div', { class: 'muted var-loading' }, 'Loading…'));
      else if (typeof children === 'string') li.appendChild(h('div', { class: 'inline-error' }, children));
      else if (children !== undefined) li.appendChild(this.variableTree(children, depth + 1, path));
      ul.appendChild(li);
    }
    return ul;
  }

  private toggle(path: string, v: VariableInfo): void {
    if (v.handle <= 0) return;
    if (this.expanded.has(path)) {
      this.expanded.delete(path);
      this.render();
      return;
    }
    this.load(path, v.handle);
    this.render();
  }

  private load(path: string, handle: number): void {
    this.expanded.set(path, { handle, children: 'loading' });
    this.app.client.request('variables', { handle }).then(
      (r: unknown) => {
        if (this.expanded.get(path)?.handle !== handle) return;
        this.expanded.set(path, { handle, children: isVariableList(r) ? r.variables : 'malformed answer' });
        this.render();
      },
      (e: unknown) => {
        if (this.expanded.get(path)?.handle !== handle) return;
        this.expanded.set(path, { handle, children: errorText(e) });
        this.render();
      },
    );
  }
}
