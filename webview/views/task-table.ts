// The task table: id, name, state, awaiting, steps, busy time, created by; sorted by a click
// on a column header, filtered by state, searched by text; virtualised: only the rows in view
// (plus a few) exist in the DOM, a fixed pool of row elements re-filled on scroll, so 10,000
// tasks scroll as smoothly as 10. Keyboard: arrows, Page Up/Down, Home/End move the selection.
//
// Invariants: a row's cells are rewritten only when the row shows a different task object
// (the snapshot mirror replaces a task's object when it changes); all text via textContent.

import type { TaskSummary } from '../../protocol/host-protocol';
import type { AppContext } from '../app-context';
import { h, icon, replace } from '../dom';
import { awaitingText, formatCount, formatMs, STATE_ICONS, STATE_LABELS } from '../state/format';
import { STATE_FILTERS, type SortKey, type StateFilter } from '../state/task-query';
import { scrollToRow, visibleRange } from '../virtual-range';

export const ROW_HEIGHT = 22;

const COLUMNS: Array<{ key: SortKey; label: string; cls: string }> = [
  { key: 'id', label: 'ID', cls: 'c-id' },
  { key: 'name', label: 'Name', cls: 'c-name' },
  { key: 'state', label: 'State', cls: 'c-state' },
  { key: 'awaiting', label: 'Awaiting', cls: 'c-await' },
  { key: 'steps', label: 'Steps', cls: 'c-steps' },
  { key: 'busy', label: 'Busy', cls: 'c-busy' },
  { key: 'createdBy', label: 'Created by', cls: 'c-by' },
];

const FILTER_LABELS: Record<StateFilter, string> = {
  all: 'All tasks',
  live: 'Live',
  suspended: 'Suspended',
  scheduled: 'Scheduled',
  running: 'Running',
  finished: 'Finished',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

interface RowSlot {
  el: HTMLDivElement;
  cells: HTMLSpanElement[];
  stateIcon: HTMLSpanElement;
  stateText: HTMLSpanElement;
  task: TaskSummary | null;
  selected: boolean;
}

export class TaskTable {
  readonly element: HTMLElement;
  private readonly body: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly rowsHost: HTMLDivElement;
  private readonly header: HTMLDivElement;
  private readonly countLabel: HTMLSpanElement;
  private readonly search: HTMLInputElement;
  private readonly filter: HTMLSelectElement;
  private readonly empty: HTMLDivElement;
  private readonly pool: RowSlot[] = [];
  private restoredScroll = false;
  /** The filter and search last shown: a new one starts at the top. */
  private shownFilter = '';
  private scrollSave: number | null = null;
  /** Milliseconds the last render took (read by tests and the perf harness). */
  lastRenderMs = 0;

  constructor(private readonly app: AppContext) {
    this.search = h('input', {
      class: 'search',
      attrs: {
        type: 'search',
        placeholder: 'Search tasks (id, name, await, frame)',
        'aria-label': 'Search tasks',
        spellcheck: 'false',
      },
      on: { input: () => app.dispatch({ type: 'search', search: this.search.value }) },
    });
    this.filter = h('select', {
      class: 'filter',
      attrs: { 'aria-label': 'Filter by state' },
      on: { change: () => app.dispatch({ type: 'filter', filter: this.filter.value as StateFilter }) },
    });
    for (const f of STATE_FILTERS) this.filter.appendChild(h('option', { attrs: { value: f } }, FILTER_LABELS[f]));
    this.countLabel = h('span', { class: 'count-label', attrs: { 'aria-live': 'polite' } });
    this.header = h('div', { class: 'task-row task-header', attrs: { role: 'row' } });
    for (const c of COLUMNS) {
      this.header.appendChild(
        h(
          'span',
          {
            class: `cell ${c.cls} sortable`,
            attrs: { role: 'columnheader', tabindex: '0', 'data-sort': c.key },
            on: {
              click: () => app.dispatch({ type: 'sort', key: c.key }),
              keydown: (e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  app.dispatch({ type: 'sort', key: c.key });
                }
              },
            },
          },
          c.label,
          icon('blank', 'sort-icon'),
        ),
      );
    }
    this.spacer = h('div', { class: 'vspacer' });
    this.rowsHost = h('div', { class: 'vrows', attrs: { role: 'rowgroup' } });
    this.empty = h('div', { class: 'empty-note' });
    this.body = h(
      'div',
      { class: 'vbody', attrs: { tabindex: '0', role: 'grid', 'aria-label': 'Tasks' } },
      this.spacer,
      this.rowsHost,
      this.empty,
    );
    this.body.addEventListener('scroll', () => this.onScroll(), { passive: true });
    this.body.addEventListener('keydown', (e) => this.onKey(e));
    this.body.addEventListener('click', (e) => {
      const row = (e.target as Element | null)?.closest('.task-row[data-id]');
      if (row instanceof HTMLElement && row.dataset.id !== undefined)
        app.dispatch({ type: 'selectTask', id: Number(row.dataset.id) });
    });
    this.element = h(
      'section',
      { class: 'task-table', attrs: { 'aria-label': 'Task table' } },
      h('div', { class: 'table-tools' }, icon('search', 'search-icon'), this.search, this.filter, this.countLabel),
      this.header,
      this.body,
    );
    new ResizeObserver(() => this.render()).observe(this.body);
  }

  private onScroll(): void {
    this.render();
    if (this.scrollSave !== null) clearTimeout(this.scrollSave);
    this.scrollSave = window.setTimeout(() => {
      this.scrollSave = null;
      this.app.dispatch({ type: 'scroll', top: this.body.scrollTop });
    }, 200);
  }

  private onKey(e: KeyboardEvent): void {
    const rows = this.app.model.rows();
    if (rows.length === 0) return;
    const sel = this.app.ui().selectedTask;
    let i = sel === null ? -1 : this.app.model.rowOf(sel);
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW_HEIGHT) - 1);
    switch (e.key) {
      case 'ArrowDown':
        i = Math.min(rows.length - 1, i + 1);
        break;
      case 'ArrowUp':
        i = Math.max(0, i - 1);
        break;
      case 'PageDown':
        i = Math.min(rows.length - 1, i + page);
        break;
      case 'PageUp':
        i = Math.max(0, i - page);
        break;
      case 'Home':
        i = 0;
        break;
      case 'End':
        i = rows.length - 1;
        break;
      default:
        return;
    }
    e.preventDefault();
    this.app.dispatch({ type: 'selectTask', id: rows[i]!.id });
    this.body.scrollTop = scrollToRow(i, this.body.scrollTop, this.body.clientHeight, ROW_HEIGHT);
  }

  /** Scrolls the selected task into view (after a selection from elsewhere). */
  revealSelected(): void {
    const sel = this.app.ui().selectedTask;
    if (sel === null) return;
    const i = this.app.model.rowOf(sel);
    if (i >= 0) this.body.scrollTop = scrollToRow(i, this.body.scrollTop, this.body.clientHeight, ROW_HEIGHT);
  }

  private slot(): RowSlot {
    const cells = COLUMNS.map((c) => h('span', { class: `cell ${c.cls}`, attrs: { role: 'gridcell' } }));
    const stateIcon = icon('blank');
    const stateText = h('span');
    cells[2]!.append(stateIcon, stateText);
    const el = h('div', { class: 'task-row', attrs: { role: 'row' } }, ...cells);
    this.rowsHost.appendChild(el);
    return { el, cells, stateIcon, stateText, task: null, selected: false };
  }

  private fill(s: RowSlot, t: TaskSummary): void {
    s.task = t;
    s.el.dataset.id = String(t.id);
    s.el.dataset.state = t.state;
    s.cells[0]!.textContent = `#${t.id}`;
    s.cells[1]!.textContent = t.name;
    s.cells[1]!.title = t.frames.length > 0 ? t.frames.join(' › ') : t.name;
    s.stateIcon.className = `codicon codicon-${STATE_ICONS[t.state]} state-icon state-${t.state}`;
    s.stateText.textContent = STATE_LABELS[t.state];
    const aw = awaitingText(t.awaiting);
    s.cells[3]!.textContent = aw !== '' ? aw : (t.outcome ?? '');
    s.cells[3]!.title = aw !== '' ? aw : (t.outcome ?? '');
    s.cells[4]!.textContent = formatCount(t.steps);
    // Not known at a past moment (the replay's CPU time is not the run's): said, never a made-up figure.
    s.cells[5]!.textContent = t.busyMs === null ? '—' : formatMs(t.busyMs);
    s.cells[5]!.title = t.busyMs === null ? 'not recorded' : '';
    s.cells[6]!.textContent = t.createdBy === null ? '' : `#${t.createdBy}`;
  }

  render(): void {
    const t0 = performance.now();
    const ui = this.app.ui();
    const model = this.app.model;
    model.setQuery(ui.query);
    const rows = model.rows();
    if (this.search.value !== ui.query.search && document.activeElement !== this.search)
      this.search.value = ui.query.search;
    if (this.filter.value !== ui.query.filter) this.filter.value = ui.query.filter;
    for (const cell of Array.from(this.header.children)) {
      if (!(cell instanceof HTMLElement)) continue;
      const key = cell.dataset.sort;
      const iconEl = cell.querySelector('.sort-icon');
      const active = key === ui.query.sort;
      cell.classList.toggle('sorted', active);
      cell.setAttribute('aria-sort', active ? (ui.query.dir === 'asc' ? 'ascending' : 'descending') : 'none');
      if (iconEl !== null)
        iconEl.className = `codicon sort-icon codicon-${active ? (ui.query.dir === 'asc' ? 'arrow-up' : 'arrow-down') : 'blank'}`;
    }
    const total = model.mirror.tasks.size;
    this.countLabel.textContent =
      rows.length === total
        ? `${formatCount(total)} task${total === 1 ? '' : 's'}`
        : `${formatCount(rows.length)} of ${formatCount(total)} tasks`;
    this.body.setAttribute('aria-rowcount', String(rows.length));
    const filterKey = `${ui.query.filter}\u0000${ui.query.search}`;
    if (!this.restoredScroll && rows.length > 0) {
      this.restoredScroll = true;
      this.shownFilter = filterKey;
      this.body.scrollTop = ui.scrollTop;
    } else if (filterKey !== this.shownFilter) {
      this.shownFilter = filterKey;
      this.body.scrollTop = 0;
    }
    const range = visibleRange(this.body.scrollTop, this.body.clientHeight || 400, ROW_HEIGHT, rows.length);
    this.spacer.style.height = `${range.total}px`;
    this.rowsHost.style.transform = `translateY(${range.offset}px)`;
    const need = range.end - range.start;
    while (this.pool.length < need) this.pool.push(this.slot());
    const sel = ui.selectedTask;
    for (let i = 0; i < this.pool.length; i++) {
      const s = this.pool[i]!;
      if (i >= need) {
        if (s.task !== null) {
          s.el.hidden = true;
          s.task = null;
        }
        continue;
      }
      const t = rows[range.start + i]!;
      if (s.el.hidden) s.el.hidden = false;
      if (s.task !== t) this.fill(s, t);
      s.el.setAttribute('aria-rowindex', String(range.start + i + 1));
      const selected = t.id === sel;
      if (selected !== s.selected) {
        s.selected = selected;
        s.el.classList.toggle('selected', selected);
        s.el.setAttribute('aria-selected', String(selected));
      }
    }
    if (rows.length === 0) {
      this.empty.hidden = false;
      replace(this.empty, total === 0 ? 'No tasks yet. Run a crawl or a sample.' : 'No task matches the filter.');
    } else this.empty.hidden = true;
    this.lastRenderMs = performance.now() - t0;
  }
}
