// The panel's UI state: which view, which task and frame, the table's query and scroll
// position, the exception shown. Kept with vscode.setState so that it survives the panel
// being hidden (the webview is destroyed then) and a window reload (the serializer brings
// the panel back with it). A reducer, pure: actions in, new state out.
//
// Invariants: restore() accepts any `unknown` (an older or damaged state) and returns a
// valid UiState, field by field, with defaults for what it cannot use. What the user looked
// at (task, frame, exception, scroll) belongs to one run (`runId`): a state kept from another
// run (a panel hidden, or reloaded, while a new run began) shows nothing of it.

import { isViewId, type ViewId } from '../../protocol/webview-protocol';
import {
  DEFAULT_QUERY,
  SORT_KEYS,
  STATE_FILTERS,
  toggleSort,
  type SortKey,
  type StateFilter,
  type TaskQuery,
} from './task-query';

export interface UiState {
  version: 1;
  /** The run the selections below are of (null: none yet, or a state kept by an older version). */
  runId: number | null;
  view: ViewId;
  selectedTask: number | null;
  /** Index into the selected task's frames (0 = root), null = the innermost. */
  selectedFrame: number | null;
  query: TaskQuery;
  scrollTop: number;
  /** Width of the task table pane, in percent of the tasks view. */
  tableWidth: number;
  /** Index into the run's exceptions shown in the exceptions view, null = the trace pair. */
  selectedException: number | null;
}

export const INITIAL_UI: UiState = {
  version: 1,
  runId: null,
  view: 'tasks',
  selectedTask: null,
  selectedFrame: null,
  query: DEFAULT_QUERY,
  scrollTop: 0,
  tableWidth: 55,
  selectedException: null,
};

export type UiAction =
  | { type: 'view'; view: ViewId }
  | { type: 'selectTask'; id: number | null }
  | { type: 'selectFrame'; index: number | null }
  | { type: 'sort'; key: SortKey }
  | { type: 'filter'; filter: StateFilter }
  | { type: 'search'; search: string }
  | { type: 'scroll'; top: number }
  | { type: 'tableWidth'; percent: number }
  | { type: 'selectException'; index: number | null }
  | { type: 'reset' }
  /** The run shown: another run than the selections' forgets them. */
  | { type: 'run'; runId: number | null };

export function uiReducer(s: UiState, a: UiAction): UiState {
  switch (a.type) {
    case 'view':
      return s.view === a.view ? s : { ...s, view: a.view };
    case 'selectTask':
      return s.selectedTask === a.id ? s : { ...s, selectedTask: a.id, selectedFrame: null };
    case 'selectFrame':
      return { ...s, selectedFrame: a.index };
    case 'sort':
      return { ...s, query: toggleSort(s.query, a.key) };
    case 'filter':
      return { ...s, query: { ...s.query, filter: a.filter }, scrollTop: 0 };
    case 'search':
      return { ...s, query: { ...s.query, search: a.search }, scrollTop: 0 };
    case 'scroll':
      return { ...s, scrollTop: Math.max(0, a.top) };
    case 'tableWidth':
      return { ...s, tableWidth: Math.min(80, Math.max(25, a.percent)) };
    case 'selectException':
      return { ...s, selectedException: a.index };
    case 'reset':
      // A new run: keep how the user looks (view, query), forget what they looked at.
      return { ...s, selectedTask: null, selectedFrame: null, scrollTop: 0, selectedException: null };
    case 'run':
      if (s.runId === a.runId) return s;
      return { ...s, runId: a.runId, selectedTask: null, selectedFrame: null, scrollTop: 0, selectedException: null };
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}
function intOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

/** A UiState from whatever getState() returned. */
export function restoreUi(v: unknown): UiState {
  if (typeof v !== 'object' || v === null) return INITIAL_UI;
  const o = v as Record<string, unknown>;
  const q = typeof o.query === 'object' && o.query !== null ? (o.query as Record<string, unknown>) : {};
  const query: TaskQuery = {
    sort:
      typeof q.sort === 'string' && (SORT_KEYS as readonly string[]).includes(q.sort)
        ? (q.sort as SortKey)
        : DEFAULT_QUERY.sort,
    dir: q.dir === 'desc' ? 'desc' : 'asc',
    filter:
      typeof q.filter === 'string' && (STATE_FILTERS as readonly string[]).includes(q.filter)
        ? (q.filter as StateFilter)
        : DEFAULT_QUERY.filter,
    search: typeof q.search === 'string' ? q.search.slice(0, 500) : '',
  };
  return {
    version: 1,
    runId: intOrNull(o.runId),
    view: isViewId(o.view) ? o.view : INITIAL_UI.view,
    selectedTask: intOrNull(o.selectedTask),
    selectedFrame: intOrNull(o.selectedFrame),
    query,
    scrollTop: Math.max(0, num(o.scrollTop, 0)),
    tableWidth: Math.min(80, Math.max(25, num(o.tableWidth, INITIAL_UI.tableWidth))),
    selectedException: intOrNull(o.selectedException),
  };
}
