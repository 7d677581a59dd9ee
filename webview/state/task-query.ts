// The task table's query (sort, state filter, search) and the rows it selects from the
// panel's mirror of the host's tasks. Pure (no DOM): the webview's reducers and the table
// virtualisation are unit-tested without a browser.
//
// Invariants: rows() is deterministic for a given table and query (ties broken by id); it is
// recomputed only when the table or the query changed since the last call (`dirty`), so that
// a burst of scroll events costs nothing; 10,000 tasks select in a few milliseconds.

import type { TaskState, TaskSummary } from '../../protocol/host-protocol';
import { SnapshotMirror, type MirrorChange } from '../../protocol/snapshot-mirror';
import type { Snapshot } from '../../protocol/host-protocol';
import { awaitingText } from './format';

export type SortKey = 'id' | 'name' | 'state' | 'awaiting' | 'steps' | 'busy' | 'createdBy';
export type SortDir = 'asc' | 'desc';
/** 'live' = scheduled, running or suspended; 'finished' = done, failed or cancelled. */
export type StateFilter = 'all' | 'live' | 'finished' | TaskState;

export const SORT_KEYS: readonly SortKey[] = ['id', 'name', 'state', 'awaiting', 'steps', 'busy', 'createdBy'];
export const STATE_FILTERS: readonly StateFilter[] = [
  'all',
  'live',
  'suspended',
  'scheduled',
  'running',
  'finished',
  'done',
  'failed',
  'cancelled',
];

export interface TaskQuery {
  sort: SortKey;
  dir: SortDir;
  filter: StateFilter;
  search: string;
}

export const DEFAULT_QUERY: TaskQuery = { sort: 'id', dir: 'asc', filter: 'all', search: '' };

const STATE_ORDER: Record<TaskState, number> = {
  running: 0,
  scheduled: 1,
  suspended: 2,
  failed: 3,
  cancelled: 4,
  done: 5,
};
const LIVE: ReadonlySet<TaskState> = new Set<TaskState>(['scheduled', 'running', 'suspended']);

export function matchesFilter(t: TaskSummary, f: StateFilter): boolean {
  if (f === 'all') return true;
  if (f === 'live') return LIVE.has(t.state);
  if (f === 'finished') return !LIVE.has(t.state);
  return t.state === f;
}

/** Lower-cased text a search matches against: id, name, state, await, frames. */
export function searchText(t: TaskSummary): string {
  return `#${t.id} ${t.name} ${t.state} ${awaitingText(t.awaiting)} ${t.frames.join(' ')} ${t.outcome ?? ''}`.toLowerCase();
}

/** Search terms: whitespace-separated, all must match (case-insensitive). */
export function searchTerms(search: string): string[] {
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter((s) => s !== '');
}

function compare(a: TaskSummary, b: TaskSummary, key: SortKey): number {
  switch (key) {
    case 'id':
      return a.id - b.id;
    case 'name':
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    case 'state':
      return STATE_ORDER[a.state] - STATE_ORDER[b.state];
    case 'awaiting': {
      const x = a.awaiting?.kind ?? '';
      const y = b.awaiting?.kind ?? '';
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'steps':
      return a.steps - b.steps;
    case 'busy':
      // Not known (a past moment's) sorts first, as no time.
      return (a.busyMs ?? -1) - (b.busyMs ?? -1);
    case 'createdBy':
      return (a.createdBy ?? -1) - (b.createdBy ?? -1);
  }
}

/** Selects and orders the rows. Pure. */
export function selectRows(tasks: Iterable<TaskSummary>, q: TaskQuery): TaskSummary[] {
  const terms = searchTerms(q.search);
  const out: TaskSummary[] = [];
  for (const t of tasks) {
    if (!matchesFilter(t, q.filter)) continue;
    if (terms.length > 0) {
      const text = searchText(t);
      if (!terms.every((term) => text.includes(term))) continue;
    }
    out.push(t);
  }
  const sign = q.dir === 'asc' ? 1 : -1;
  out.sort((a, b) => sign * compare(a, b, q.sort) || a.id - b.id);
  return out;
}

/** The next query after a click on a column header: same column flips, another sorts ascending. */
export function toggleSort(q: TaskQuery, key: SortKey): TaskQuery {
  return q.sort === key
    ? { ...q, dir: q.dir === 'asc' ? 'desc' : 'asc' }
    : { ...q, sort: key, dir: key === 'steps' || key === 'busy' ? 'desc' : 'asc' };
}

/** The panel's task table: a mirror plus the cached rows of the current query. */
export class TaskTableModel {
  readonly mirror = new SnapshotMirror();
  private cached: TaskSummary[] = [];
  private dirty = true;
  private query: TaskQuery = DEFAULT_QUERY;
  private readonly index = new Map<number, number>();

  apply(s: Snapshot): MirrorChange {
    const c = this.mirror.apply(s);
    if (c.full || c.upserted.length > 0 || c.removed.length > 0) this.dirty = true;
    return c;
  }

  clear(): void {
    this.mirror.clear();
    this.dirty = true;
  }

  setQuery(q: TaskQuery): void {
    if (
      q.sort === this.query.sort &&
      q.dir === this.query.dir &&
      q.filter === this.query.filter &&
      q.search === this.query.search
    )
      return;
    this.query = q;
    this.dirty = true;
  }

  getQuery(): TaskQuery {
    return this.query;
  }

  rows(): TaskSummary[] {
    if (this.dirty) {
      this.cached = selectRows(this.mirror.tasks.values(), this.query);
      this.index.clear();
      for (let i = 0; i < this.cached.length; i++) this.index.set(this.cached[i]!.id, i);
      this.dirty = false;
    }
    return this.cached;
  }

  /** The row index of a task in the current rows, or -1. */
  rowOf(id: number): number {
    this.rows();
    return this.index.get(id) ?? -1;
  }

  get(id: number): TaskSummary | undefined {
    return this.mirror.tasks.get(id);
  }
}
