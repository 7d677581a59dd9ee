// The inspector panel's application: the header (run status, loop controls), the tabs, the
// five views, the banner for a host that died, and the wiring of the extension's events.
//
// Invariants:
// - Rendering is coalesced: events mark the panel dirty and one requestAnimationFrame
//   renders the visible view (snapshots are applied to the model at once, cheaply).
// - The UI state goes through uiReducer and is saved with vscode.setState (debounced), so a
//   hidden and shown again, or reloaded, panel comes back as it was.
// - On `ready` the extension sends everything it holds; the panel asks again whenever it
//   boots, so it never depends on messages sent while it was hidden.

import type { CrawlProgress, SourcePosition } from '../protocol/host-protocol';
import { ProgressHistory } from '../protocol/progress-history';
import { isRecordingRun, type RunMoment } from '../protocol/run-moment';
import {
  narrowComparison,
  narrowException,
  isProgramLoopState,
  narrowPanelInit,
  narrowProgress,
  narrowLogpointMarks,
  narrowProgressPoint,
  narrowRunStatus,
  narrowSnapshot,
  isLint,
  isViewId,
  VIEW_IDS,
  type ControlAction,
  type PanelCommand,
  type RunStatus,
  type ViewId,
} from '../protocol/webview-protocol';
import { errorText, type AppContext, type RunData } from './app-context';
import { h, icon, iconButton, replace } from './dom';
import { connect, vscodeApi, type PanelClient } from './host-bridge';
import { SeekQueue } from './state/seek-queue';
import { askAgain } from './state/ask-again';
import { MomentIds } from '../protocol/moment-ids';
import { TaskTableModel } from './state/task-query';
import { LogpointMarks } from './state/logpoint-marks';
import { TimelineModel } from './state/timeline-model';
import { TimelineFeed } from './timeline-feed';
import { restoreUi, uiReducer, type UiAction, type UiState } from './state/ui-state';
import { headerFacts, MomentTracker } from './state/moment-view';
import { AwaitGraphView } from './views/await-graph';
import { DashboardView } from './views/dashboard';
import { ExceptionsView } from './views/exceptions';
import { LintsView } from './views/lints';
import { ProgramLoopsView } from './views/program-loops';
import { TaskDetailView } from './views/task-detail';
import { Scrubber } from './views/scrubber';
import { TaskTable } from './views/task-table';
import { TimelineView } from './views/timeline';

/** `ready` is asked again this often while unanswered, at most READY_TRIES times. */
const READY_AGAIN_MS = 3_000;
const READY_TRIES = 40;

const VIEW_LABELS: Record<ViewId, { label: string; icon: string }> = {
  tasks: { label: 'Tasks', icon: 'list-flat' },
  timeline: { label: 'Timeline', icon: 'history' },
  graph: { label: 'Await Graph', icon: 'type-hierarchy' },
  exceptions: { label: 'Exceptions', icon: 'bug' },
  dashboard: { label: 'Dashboard', icon: 'graph-line' },
  lints: { label: 'Lints', icon: 'warning' },
};

const PHASE: Record<RunStatus['phase'], { label: string; icon: string }> = {
  idle: { label: 'No run', icon: 'circle-large-outline' },
  starting: { label: 'Starting', icon: 'loading' },
  running: { label: 'Running', icon: 'play-circle' },
  paused: { label: 'Paused', icon: 'debug-pause' },
  finished: { label: 'Finished', icon: 'pass-filled' },
  hostDied: { label: 'Host died', icon: 'error' },
  ended: { label: 'Ended', icon: 'debug-stop' },
};

export class App implements AppContext {
  readonly client: PanelClient;
  readonly model = new TaskTableModel();
  readonly timeline = new TimelineModel();
  readonly logpointMarks = new LogpointMarks();
  /** The chart's points and the crawled pages, trimmed as the extension trims its copy; `data` shows its lists. */
  private readonly history = new ProgressHistory();
  /** Where "now" is and the crawl's numbers of the moment shown (protocol/run-moment.ts). */
  private readonly moments = new MomentTracker();
  readonly data: RunData = {
    status: { phase: 'idle', runId: null, title: 'No run', detail: '', tick: 0 },
    progress: this.history.points,
    lastProgress: null,
    exceptions: [],
    lints: [],
    pages: this.history.pages,
    comparison: null,
    programLoops: [],
    debugged: false,
  };
  private state: UiState;
  private frame: number | null = null;
  private saveTimer: number | null = null;
  private messageTimer: number | null = null;
  private readonly table: TaskTable;
  private readonly detail: TaskDetailView;
  private readonly graph: AwaitGraphView;
  private readonly exceptions: ExceptionsView;
  private readonly dashboard: DashboardView;
  private readonly lints: LintsView;
  private readonly programLoops: ProgramLoopsView;
  private readonly timelineView: TimelineView;
  private readonly scrubber: Scrubber;
  private readonly feed: TimelineFeed;
  private readonly seeks: SeekQueue;
  private readonly statusEl: HTMLDivElement;
  private readonly controls: HTMLDivElement;
  private readonly tabs: HTMLElement;
  private readonly banner: HTMLDivElement;
  private readonly message: HTMLDivElement;
  private readonly views: Record<ViewId, HTMLElement>;
  private readonly tasksSplit: HTMLDivElement;
  /** Milliseconds from receiving the last snapshot to the end of its render (tests read it). */
  lastSnapshotRenderMs = 0;
  private snapshotReceivedAt: number | null = null;
  private readonly buttons = new Map<string, HTMLButtonElement>();
  private readonly tabButtons = new Map<ViewId, { tab: HTMLButtonElement; count: HTMLSpanElement }>();
  private headerKey = '';
  private bannerKey = '';

  constructor(root: HTMLElement) {
    this.state = restoreUi(vscodeApi().getState());
    this.client = connect();
    this.table = new TaskTable(this);
    this.detail = new TaskDetailView(this);
    this.graph = new AwaitGraphView(this);
    this.exceptions = new ExceptionsView(this);
    this.dashboard = new DashboardView(this);
    this.lints = new LintsView(this);
    this.programLoops = new ProgramLoopsView(this);
    this.timelineView = new TimelineView(this);
    this.scrubber = new Scrubber(this);
    this.feed = new TimelineFeed(this.client, this.timeline, () => this.invalidate());
    this.seeks = new SeekQueue(
      (tick, moment) =>
        this.client.request('seek', { tick, moment }).then((answer) => {
          this.invalidate();
          return answer;
        }),
      (e) => {
        this.notify(`Could not show that tick: ${errorText(e)}`, 'error');
        this.invalidate();
      },
      // A name of this panel's own: a panel opened again never reuses an id of the one before.
      new MomentIds(`webview ${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`),
    );
    this.statusEl = h('div', { class: 'run-status', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.controls = h('div', { class: 'loop-controls', attrs: { role: 'toolbar', 'aria-label': 'Loop controls' } });
    this.tabs = h('nav', { class: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Inspector views' } });
    this.banner = h('div', { class: 'banner', attrs: { role: 'alert' } });
    this.message = h('div', { class: 'message-bar', attrs: { role: 'status' } });
    const splitter = h('div', {
      class: 'splitter',
      attrs: {
        role: 'separator',
        'aria-orientation': 'vertical',
        tabindex: '0',
        'aria-label': 'Resize the task table',
      },
    });
    this.tasksSplit = h('div', { class: 'tasks-view' }, this.table.element, splitter, this.detail.element);
    this.setupSplitter(splitter);
    this.views = {
      tasks: this.tasksSplit,
      timeline: this.timelineView.element,
      graph: this.graph.element,
      exceptions: this.exceptions.element,
      dashboard: this.dashboard.element,
      lints: this.lints.element,
    };
    const main = h('main', { class: 'views' }, ...VIEW_IDS.map((v) => this.views[v]));
    for (const v of VIEW_IDS) {
      this.views[v].setAttribute('role', 'tabpanel');
      this.views[v].id = `view-${v}`;
    }
    this.buildChrome();
    root.append(
      h('header', { class: 'panel-header' }, this.statusEl, this.controls),
      this.scrubber.element,
      this.banner,
      this.programLoops.element,
      this.tabs,
      this.message,
      main,
    );
    this.listen();
    this.render();
    void this.boot();
  }

  // --- AppContext ----------------------------------------------------------------------------

  ui(): UiState {
    return this.state;
  }

  dispatch(action: UiAction): void {
    const next = uiReducer(this.state, action);
    if (next === this.state) return;
    const prev = this.state;
    this.state = next;
    this.scheduleSave();
    if (action.type === 'scroll') return; // the table already shows it
    if (prev.view !== next.view && next.view === 'graph') this.graph.refreshSoon();
    this.invalidate();
  }

  showTask(id: number): void {
    this.dispatch({ type: 'view', view: 'tasks' });
    this.dispatch({ type: 'selectTask', id });
    requestAnimationFrame(() => this.table.revealSelected());
  }

  openSource(position: SourcePosition): void {
    this.client.request('openSource', { position }).then(
      (r) => {
        if (!r.opened) this.notify(`Could not open ${position.file}`, 'error');
      },
      (e: unknown) => this.notify(errorText(e), 'error'),
    );
  }

  notify(text: string, kind: 'error' | 'info' = 'info'): void {
    replace(
      this.message,
      icon(kind === 'error' ? 'error' : 'info'),
      h('span', null, text),
      iconButton('close', 'Dismiss', () => replace(this.message)),
    );
    this.message.className = `message-bar ${kind}`;
    if (this.messageTimer !== null) clearTimeout(this.messageTimer);
    this.messageTimer = window.setTimeout(() => replace(this.message), kind === 'error' ? 10_000 : 4_000);
  }

  goToLogpointHit(hit: number): void {
    this.client
      .request('goToLogpointHit', { hit })
      .catch((e: unknown) => this.notify(`Could not go to the logpoint's hit: ${errorText(e)}`, 'error'));
  }

  followTask(taskId: number): void {
    this.client.request('followTask', { taskId }).then(
      () => this.notify(`The debugger follows task #${taskId}: Continue, Reverse Continue and the steps move it alone`),
      (e: unknown) => this.notify(`Could not follow the task: ${errorText(e)}`, 'error'),
    );
  }

  seek(tick: number | null): void {
    this.seeks.ask(tick);
    this.invalidate();
  }

  moment(): RunMoment {
    return this.moments.moment(this.data.status, {
      timelineTicks: this.timeline.lastTick,
      wantedTick: this.seeks.wanted,
    });
  }

  shownTick(): number {
    return this.moment().tick;
  }

  lastTick(): number {
    return this.moment().lastTick;
  }

  viewingPast(): boolean {
    return this.moment().kind !== 'present';
  }

  shownProgress(): CrawlProgress | null {
    return this.moments.progressAt(this.moment());
  }

  invalidate(): void {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.render();
    });
  }

  // --- extension events ----------------------------------------------------------------------

  private async boot(): Promise<void> {
    try {
      // Asked again while unanswered: an answer posted while VS Code counted the panel hidden is lost.
      const raw: unknown = await askAgain(() => this.client.request('ready', {}), READY_AGAIN_MS, READY_TRIES);
      this.applyInit(raw, performance.now());
    } catch (e) {
      this.notify(`The panel could not load the run: ${errorText(e)}`, 'error');
    }
  }

  /** Everything the extension holds (the answer to `ready`, or a `resync`): the panel shows it, as new. */
  private applyInit(raw: unknown, received: number): void {
    const init = narrowPanelInit(raw);
    if (init === null) throw new Error('the extension sent a malformed initial state');
    this.data.status = init.status;
    // A selection kept (setState) from another run than this one shows nothing of it.
    this.dispatch({ type: 'run', runId: init.status.runId });
    this.moments.reset(init.lastProgress);
    this.feed.status(init.status);
    this.history.reset(init.progress, init.pages);
    this.data.exceptions = init.exceptions;
    this.data.lints = init.lints;
    this.data.lastProgress = init.lastProgress;
    this.data.comparison = init.comparison ?? null;
    this.data.programLoops = init.programLoops ?? [];
    this.logpointMarks.replace(init.logpointHits ?? []);
    this.data.debugged = init.debugged === true;
    this.model.clear();
    if (init.snapshot !== null) {
      this.snapshotReceivedAt = received;
      this.model.apply(init.snapshot);
      this.moments.snapshot(init.snapshot, init.status.viewedTick !== undefined || isRecordingRun(init.status));
    }
    this.detail.taskChanged();
    this.invalidate();
  }

  private listen(): void {
    const c = this.client;
    c.on('status', (raw) => {
      const s = narrowRunStatus(raw);
      if (s === null) return;
      const wasPaused = this.data.status.phase === 'paused';
      // A new moment shown, or the replay of the one shown landed (positions and locals to read) or failed.
      const seeked =
        this.data.status.viewedTick !== s.viewedTick ||
        this.data.status.viewedMoment !== s.viewedMoment ||
        this.data.status.viewedReplaying !== s.viewedReplaying ||
        this.data.status.viewedReplayError !== s.viewedReplayError;
      this.moments.status(this.data.status, s);
      this.data.status = s;
      this.dispatch({ type: 'run', runId: s.runId });
      this.seeks.shown(s.momentId);
      this.feed.status(s);
      if (s.phase === 'paused' || wasPaused || seeked) this.detail.taskChanged();
      if (seeked) this.graph.refreshSoon();
      if (s.phase === 'paused' && this.state.view === 'graph') this.graph.refreshSoon();
      this.invalidate();
    });
    c.on('reset', (raw) => {
      const s = narrowRunStatus(typeof raw === 'object' && raw !== null ? (raw as { status?: unknown }).status : null);
      this.model.clear();
      this.feed.reset();
      this.timelineView.reset();
      this.history.reset();
      this.data.exceptions = [];
      this.data.lints = [];
      this.data.lastProgress = null;
      this.moments.reset();
      this.seeks.reset();
      this.data.programLoops = [];
      this.logpointMarks.clear();
      if (s !== null) {
        this.data.status = s;
        this.feed.status(s);
      }
      this.detail.reset();
      this.graph.reset();
      this.exceptions.reset();
      this.dispatch({ type: 'reset' });
      if (s !== null) this.dispatch({ type: 'run', runId: s.runId });
      this.invalidate();
    });
    c.on('snapshot', (raw) => {
      const received = performance.now();
      const n = narrowSnapshot(raw);
      if (n === null) return;
      this.snapshotReceivedAt ??= received;
      const change = this.model.apply(n.snapshot);
      // In the past, the crawl's numbers are the snapshot's (as they were at that tick); the present's stay apart.
      // The extension's table is of the moment its status says (a seek asked meanwhile is not there yet).
      this.moments.snapshot(n.snapshot, this.data.status.viewedTick !== undefined || isRecordingRun(this.data.status));
      if (n.snapshot.progress !== null && this.data.lastProgress === null) this.data.lastProgress = n.snapshot.progress;
      const sel = this.state.selectedTask;
      if (sel !== null && (change.upserted.includes(sel) || change.removed.includes(sel))) this.detail.taskChanged();
      if (this.state.view === 'graph') this.graph.refreshSoon();
      this.invalidate();
    });
    c.on('progress', (raw) => {
      if (typeof raw !== 'object' || raw === null) return;
      const r = raw as { point?: unknown; progress?: unknown };
      const point = narrowProgressPoint(r.point);
      const progress = narrowProgress(r.progress);
      if (progress === null) return;
      this.history.record(point, progress.recent);
      this.data.lastProgress = progress;
      this.moments.progress(progress);
      if (this.state.view === 'dashboard') this.invalidate();
      else this.renderHeaderSoon();
    });
    c.on('exception', (raw) => {
      const x = narrowException(raw);
      if (x === null) return;
      this.data.exceptions.push(x);
      if (this.data.exceptions.length > 200) this.data.exceptions.shift();
      this.invalidate();
    });
    c.on('lint', (raw) => {
      const l = typeof raw === 'object' && raw !== null ? (raw as { lint?: unknown }).lint : undefined;
      if (!isLint(l)) return;
      this.data.lints.push(l);
      this.invalidate();
    });
    c.on('comparison', (raw) => {
      const x = narrowComparison(raw);
      if (x === null) return;
      this.data.comparison = x;
      if (this.state.view === 'dashboard') this.invalidate();
    });
    c.on('programLoops', (raw) => {
      const loops = typeof raw === 'object' && raw !== null ? (raw as { loops?: unknown }).loops : undefined;
      this.data.programLoops = Array.isArray(loops) ? loops.filter(isProgramLoopState) : [];
      this.invalidate();
    });
    c.on('logpointHits', (raw) => {
      const hits = typeof raw === 'object' && raw !== null ? (raw as { hits?: unknown }).hits : undefined;
      this.logpointMarks.replace(narrowLogpointMarks(hits));
      this.invalidate();
    });
    c.on('resync', (raw) => {
      try {
        this.applyInit(raw, performance.now());
      } catch (e) {
        this.notify(`The panel could not load the run: ${errorText(e)}`, 'error');
      }
    });
    c.on('debugged', (raw) => {
      this.data.debugged = typeof raw === 'object' && raw !== null && (raw as { debugged?: unknown }).debugged === true;
      this.detail.taskChanged();
      this.invalidate();
    });
    c.on('reveal', (raw) => {
      if (typeof raw !== 'object' || raw === null) return;
      const r = raw as { view?: unknown; taskId?: unknown };
      if (!isViewId(r.view)) return;
      this.dispatch({ type: 'view', view: r.view });
      if (typeof r.taskId === 'number') this.showTask(r.taskId);
    });
  }

  private renderHeaderSoon(): void {
    this.invalidate();
  }

  // --- rendering -------------------------------------------------------------------------------

  private render(): void {
    const view = this.state.view;
    this.renderHeader();
    this.programLoops.render();
    this.scrubber.render();
    this.renderTabs();
    for (const v of VIEW_IDS) this.views[v].hidden = v !== view;
    this.tasksSplit.classList.toggle('stale', this.data.status.phase === 'hostDied');
    switch (view) {
      case 'tasks':
        this.tasksSplit.style.gridTemplateColumns = `${this.state.tableWidth}% 4px minmax(0, 1fr)`;
        this.table.render();
        this.detail.render();
        break;
      case 'graph':
        this.graph.render();
        break;
      case 'exceptions':
        this.exceptions.render();
        break;
      case 'dashboard':
        this.dashboard.render();
        break;
      case 'lints':
        this.lints.render();
        break;
      case 'timeline':
        this.timelineView.render();
        break;
    }
    if (this.snapshotReceivedAt !== null) {
      this.lastSnapshotRenderMs = performance.now() - this.snapshotReceivedAt;
      this.snapshotReceivedAt = null;
      document.body.dataset.renderMs = this.lastSnapshotRenderMs.toFixed(1);
      document.body.dataset.tableRenderMs = this.table.lastRenderMs.toFixed(1);
      document.body.dataset.tasks = String(this.model.mirror.tasks.size);
    }
  }

  /** Builds the loop controls and the tabs once; renders only update them (a button
   *  replaced under the pointer would lose its click). */
  private buildChrome(): void {
    const ctl = (action: ControlAction, iconName: string, label: string, text: string): HTMLButtonElement => {
      const b = iconButton(iconName, label, () => this.control(action), { text, id: action });
      this.buttons.set(action, b);
      return b;
    };
    const run = iconButton('play', 'Run a crawl', () => this.command('runCrawl'), {
      text: 'Run Crawl…',
      id: 'run-crawl',
    });
    this.buttons.set('runCrawl', run);
    // The same run in Run and Debug: its tasks as threads, stepping from either place.
    const debug = iconButton(
      'debug-alt',
      'Debug this run in Run and Debug (its tasks as threads)',
      () => this.command('debugRun'),
      { text: 'Debug', id: 'debugRun' },
    );
    this.buttons.set('debugRun', debug);
    this.controls.append(
      ctl('pause', 'debug-pause', 'Pause the loop (F6)', 'Pause'),
      ctl('stepTick', 'debug-step-over', 'Run one loop tick (F10)', 'Step Tick'),
      ctl('stepTask', 'debug-step-into', 'Run the selected task until it suspends again', 'Step Task'),
      ctl('continue', 'debug-continue', 'Continue the loop (F5)', 'Continue'),
      ctl('stop', 'debug-stop', 'Stop the run', 'Stop'),
      debug,
      h('span', { class: 'toolbar-sep' }),
      run,
      iconButton('book', 'Open a tutorial sample', () => this.command('openSample'), { id: 'open-sample' }),
      iconButton('output', 'Show the Coroscope output', () => this.command('showLog'), { id: 'show-log' }),
    );
    for (const v of VIEW_IDS) {
      const count = h('span', { class: 'tab-count' });
      const tab = h(
        'button',
        {
          class: 'tab',
          attrs: { role: 'tab', type: 'button', 'aria-controls': `view-${v}`, 'data-view': v },
          on: { click: () => this.dispatch({ type: 'view', view: v }) },
        },
        icon(VIEW_LABELS[v].icon),
        h('span', null, VIEW_LABELS[v].label),
        count,
      );
      this.tabButtons.set(v, { tab, count });
      this.tabs.appendChild(tab);
    }
  }

  private renderHeader(): void {
    const s = this.data.status;
    const ph = PHASE[s.phase];
    const counts = this.model.mirror.counts;
    const live = counts.scheduled + counts.running + counts.suspended;
    const facts: string[] = s.runId !== null ? headerFacts(this.moment(), live, this.shownProgress()) : [];
    const key = `${s.phase}|${s.title}|${s.detail}|${facts.join('|')}`;
    if (key !== this.headerKey) {
      this.headerKey = key;
      replace(
        this.statusEl,
        h(
          'span',
          { class: `phase-badge phase-${s.phase}`, attrs: { 'data-phase': s.phase } },
          icon(ph.icon, s.phase === 'starting' ? 'codicon-modifier-spin' : ''),
          h('span', null, ph.label),
        ),
        h(
          'div',
          { class: 'run-text' },
          h('div', { class: 'run-title' }, s.title),
          h('div', { class: 'run-detail' }, [s.detail, ...facts].filter((x) => x !== '').join(' · ')),
        ),
      );
    }
    // Loop controls act on the present: in the past they wait for "Back to present".
    const past = this.viewingPast();
    const paused = s.phase === 'paused' && !past;
    const running = s.phase === 'running' && !past;
    const selected = this.state.selectedTask !== null ? this.model.get(this.state.selectedTask) : undefined;
    const enabled: Record<string, boolean> = {
      pause: running,
      stepTick: paused,
      stepTask: paused && selected !== undefined && (selected.state === 'suspended' || selected.state === 'scheduled'),
      continue: paused,
      stop: s.phase === 'running' || s.phase === 'paused',
      // A finished run is debugged through its recording (stopped at its end, stepping back).
      debugRun: s.phase === 'running' || s.phase === 'paused' || (s.phase === 'finished' && s.recorded === true),
    };
    for (const [k, b] of this.buttons) {
      if (k === 'runCrawl') b.classList.toggle('primary', !(running || paused));
      else if (b.disabled !== !enabled[k]) b.disabled = !enabled[k];
    }
    if (s.phase === 'hostDied') {
      if (this.banner.hidden || this.bannerKey !== key) {
        this.bannerKey = key;
        this.banner.hidden = false;
        replace(
          this.banner,
          h(
            'div',
            { class: 'banner-head' },
            icon('error'),
            ' ',
            h('strong', null, s.detail),
            ' What the panel shows is how the run stood then. The next command starts a new host.',
          ),
          s.lastLines !== undefined && s.lastLines.length > 0
            ? h('pre', { class: 'last-lines' }, s.lastLines.join('\n'))
            : null,
        );
      }
    } else {
      this.banner.hidden = true;
    }
  }

  private renderTabs(): void {
    const counts: Partial<Record<ViewId, number>> = {
      tasks: this.model.mirror.tasks.size,
      exceptions: this.data.exceptions.length,
      lints: this.data.lints.length,
    };
    for (const [v, { tab, count }] of this.tabButtons) {
      const active = v === this.state.view;
      tab.classList.toggle('active', active);
      tab.setAttribute('aria-selected', String(active));
      const n = counts[v];
      const text = n !== undefined && n > 0 ? String(n) : '';
      if (count.textContent !== text) count.textContent = text;
      count.hidden = text === '';
    }
  }

  private control(action: ControlAction): void {
    const taskId = this.state.selectedTask;
    const req =
      action === 'stepTask' && taskId !== null
        ? this.client.request('control', { action, taskId })
        : this.client.request('control', { action });
    req.then(
      () => this.detail.taskChanged(),
      (e: unknown) => this.notify(errorText(e), 'error'),
    );
  }

  private command(command: PanelCommand): void {
    this.client.request('command', { command }).catch((e: unknown) => this.notify(errorText(e), 'error'));
  }

  private scheduleSave(): void {
    // body[data-ui-state] says whether the newest UI state is saved yet ('pending' until the
    // debounced setState): what a reload would bring back, readable from outside (e2e tests).
    document.body.dataset.uiState = 'pending';
    if (this.saveTimer !== null) return;
    this.saveTimer = window.setTimeout(() => {
      this.saveTimer = null;
      vscodeApi().setState(this.state);
      document.body.dataset.uiState = 'saved';
    }, 150);
  }

  private setupSplitter(splitter: HTMLElement): void {
    let dragging = false;
    splitter.addEventListener('pointerdown', (e) => {
      dragging = true;
      splitter.setPointerCapture(e.pointerId);
    });
    splitter.addEventListener('pointermove', (e) => {
      if (!dragging) return;
      const rect = this.tasksSplit.getBoundingClientRect();
      this.dispatch({ type: 'tableWidth', percent: ((e.clientX - rect.left) / rect.width) * 100 });
    });
    splitter.addEventListener('pointerup', () => {
      dragging = false;
    });
    splitter.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowLeft') this.dispatch({ type: 'tableWidth', percent: this.state.tableWidth - 2 });
      if (e.key === 'ArrowRight') this.dispatch({ type: 'tableWidth', percent: this.state.tableWidth + 2 });
    });
  }
}
