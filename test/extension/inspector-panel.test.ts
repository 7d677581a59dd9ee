// The inspector panel (extension/inspector-panel.ts) through the stub of the editor's API
// (debug/vscode-stub.ts: a webview panel recording what is posted to its page) on Node's mocked
// setTimeout, against fakes of its dependencies (the run session, the logpoint marks, the debugged
// run): one panel, made in the column the caller asks, shown again when asked again; `ready` answered
// with everything; events only to a page that is current (none while loading or hidden; a page shown
// again is resynced first); snapshot deltas within 50 ms sent once, merged; a reveal held until the page
// can hear it; each request narrowed, then served by the dependency it names; a page that never boots
// loaded again, at most three times, then the user told; closed, it forgets its listeners and timers.
import { StubUri, StubWebviewPanel, stubWindow } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, type TestContext } from 'node:test';
import type { Snapshot, TaskDetail } from '../../protocol/host-protocol';
import type { PanelCommand, RunStatus } from '../../protocol/webview-protocol';
import { PANEL_PROTOCOL_VERSION } from '../../protocol/webview-protocol';
import { Emitter } from '../../extension/emitter';
import { InspectorPanel, PANEL_VIEW_TYPE, type PanelDependencies } from '../../extension/inspector-panel';
import type { LogpointMark } from '../../protocol/webview-protocol';
import { makeTask } from '../webview/fixtures-tasks';

const STATUS: RunStatus = { phase: 'paused', runId: 3, title: 'Crawl', detail: 'paused', tick: 12 };
const COUNTS = { scheduled: 0, running: 0, suspended: 1, done: 0, cancelled: 0, failed: 0 };

function delta(version: number, taskIds: number[], removed: number[] = [], full = false): Snapshot {
  return {
    version,
    full,
    tick: version,
    paused: false,
    tasks: taskIds.map((id) => makeTask(id)),
    removed,
    counts: COUNTS,
    progress: null,
  };
}

/** An Emitter that counts its listeners (a closed panel must leave none). */
class CountedEmitter<T> extends Emitter<T> {
  listening = 0;
  override on(listener: (value: T) => void): () => void {
    const off = super.on(listener);
    this.listening++;
    return () => {
      this.listening--;
      off();
    };
  }
}

/** The dependencies as fakes: each call they receive is logged, in order. */
function fakeDependencies() {
  const calls: unknown[][] = [];
  const debugged = { value: false };
  const session = {
    onReset: new CountedEmitter<RunStatus>(),
    onStatus: new CountedEmitter<RunStatus>(),
    onSnapshot: new CountedEmitter<{ snapshot: Snapshot }>(),
    onProgress: new CountedEmitter<unknown>(),
    onException: new CountedEmitter<unknown>(),
    onLint: new CountedEmitter<unknown>(),
    onComparison: new CountedEmitter<unknown>(),
    onProgramLoops: new CountedEmitter<unknown[]>(),
    status: STATUS,
    mirror: { version: -1, toFullSnapshot: () => delta(0, [2], [], true) },
    progressPoints: [],
    exceptions: Array.from({ length: 120 }, (_, i) => ({ index: i })),
    lints: [],
    pages: [],
    lastProgress: null,
    comparison: null,
    programLoops: [],
    request: async (method: string, params: unknown) => {
      calls.push(['host', method, params]);
      return method === 'taskDetail' ? { taskId: 5, frames: [] } : { answered: method };
    },
    cancelTask: async (taskId: number, by: string) => (calls.push(['cancelTask', taskId, by]), true),
    pause: async () => (calls.push(['pause']), { tick: 13 }),
    continue: async () => (calls.push(['continue']), { tick: 14 }),
    stepTick: async () => (calls.push(['stepTick']), { tick: 15 }),
    stepTask: async (taskId: number) => (calls.push(['stepTask', taskId]), { tick: 16 }),
    stopRun: async () => void calls.push(['stopRun']),
    seek: async (tick: number | null, moment?: string) => (calls.push(['seek', tick, moment]), tick),
  };
  const logpointMarks = {
    onMarks: new CountedEmitter<LogpointMark[]>(),
    current: () => [],
    goToHit: async (hit: number) => void calls.push(['goToHit', hit]),
  };
  const debuggedRun = {
    onDebugged: new CountedEmitter<boolean>(),
    debugged: () => debugged.value,
    followTask: async (taskId: number) => void calls.push(['followTask', taskId]),
  };
  const deps = {
    extensionUri: StubUri.file('/ext'),
    session,
    logpointMarks,
    debuggedRun,
    openSource: async (position: { file: string; line: number }) => (calls.push(['openSource', position]), true),
    runCommand: async (command: PanelCommand) => void calls.push(['runCommand', command]),
    onVisibilityChanged: (visible: boolean) => void calls.push(['visible', visible]),
    onTaskDetailShown: (detail: TaskDetail) => void calls.push(['detailShown', detail]),
  };
  return { deps: deps as unknown as PanelDependencies, session, logpointMarks, debuggedRun, calls, debugged };
}

type Fakes = ReturnType<typeof fakeDependencies>;

/** Lets the answers (promises) reach the page. */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** What the page received: events as [event, body], responses as ['response', id, ok, result|error code]. */
function received(panel: StubWebviewPanel): unknown[][] {
  return panel.posted.map((raw) => {
    const m = raw as { kind: string; event?: string; body?: unknown; id?: number; ok?: boolean; result?: unknown };
    if (m.kind === 'event') return [m.event, m.body];
    const error = (raw as { error?: { code: string } }).error;
    return ['response', m.id, m.ok, m.ok ? m.result : error?.code];
  });
}

let nextId = 1;
/** The page asks `method`; resolves with the answer posted (its result, or its error code). */
async function ask(panel: StubWebviewPanel, method: string, params: unknown = {}): Promise<unknown> {
  const id = nextId++;
  panel.receive({ kind: 'request', id, method, params });
  await settled();
  const answer = received(panel).find((m) => m[0] === 'response' && m[1] === id);
  assert.ok(answer !== undefined, `${method} was answered`);
  return answer[2] === true ? answer[3] : { refused: answer[3] };
}

/** A panel shown by the fakes, its page booted (`ready` answered) and what it received so far cleared. */
async function bootedPanel(): Promise<{ fakes: Fakes; panel: StubWebviewPanel; inspector: InspectorPanel }> {
  const fakes = fakeDependencies();
  const inspector = InspectorPanel.show(fakes.deps);
  const panel = stubWindow.webviewPanels[0]?.panel;
  assert.ok(panel !== undefined);
  await ask(panel, 'ready');
  panel.posted.length = 0;
  return { fakes, panel, inspector };
}

function clock(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout'] });
}

beforeEach(() => stubWindow.reset());
afterEach(() => InspectorPanel.visiblePanel()?.dispose());

describe('the inspector panel', () => {
  it('one panel: made beside the editor, in the second column for a debugger, shown again when asked', (t) => {
    clock(t);
    const fakes = fakeDependencies();
    const first = InspectorPanel.show(fakes.deps);
    assert.equal(InspectorPanel.show(fakes.deps, undefined, true), first);
    assert.equal(InspectorPanel.visiblePanel(), first);
    first.dispose();
    assert.equal(InspectorPanel.visiblePanel(), null);
    stubWindow.activeEditor = { document: { uri: StubUri.file('/w/a.ts'), languageId: 'typescript' } };
    InspectorPanel.show(fakes.deps);
    InspectorPanel.visiblePanel()?.dispose();
    InspectorPanel.show(fakes.deps, undefined, true);
    assert.deepEqual(
      stubWindow.webviewPanels.map((p) => [p.viewType, p.showOptions]),
      [
        [PANEL_VIEW_TYPE, { viewColumn: -1, preserveFocus: false }],
        [PANEL_VIEW_TYPE, { viewColumn: -2, preserveFocus: false }],
        [PANEL_VIEW_TYPE, { viewColumn: 2, preserveFocus: true }],
      ],
    );
    assert.deepEqual(stubWindow.webviewPanels[0]?.panel.reveals, [{ viewColumn: undefined, preserveFocus: true }]);
    assert.deepEqual(
      fakes.calls.filter((c) => c[0] === 'visible'),
      [
        ['visible', false],
        ['visible', false],
      ],
    );
  });

  it('`ready` is answered with everything the panel shows', async (t) => {
    clock(t);
    const fakes = fakeDependencies();
    fakes.debugged.value = true;
    InspectorPanel.show(fakes.deps);
    const panel = stubWindow.webviewPanels[0]?.panel;
    assert.ok(panel !== undefined);
    const init = (await ask(panel, 'ready')) as Record<string, unknown>;
    assert.deepEqual(
      {
        protocolVersion: init.protocolVersion,
        status: init.status,
        snapshot: init.snapshot,
        exceptions: (init.exceptions as Array<{ index: number }>).map((e) => e.index),
        debugged: init.debugged,
        logpointHits: init.logpointHits,
      },
      {
        protocolVersion: PANEL_PROTOCOL_VERSION,
        status: STATUS,
        snapshot: null,
        exceptions: Array.from({ length: 100 }, (_, i) => i + 20),
        debugged: true,
        logpointHits: [],
      },
    );
    fakes.session.mirror.version = 4;
    assert.deepEqual(((await ask(panel, 'ready')) as { snapshot: Snapshot }).snapshot, delta(0, [2], [], true));
  });

  it('events reach a current page only: none while loading or hidden; shown again, a resync first', async (t) => {
    clock(t);
    const fakes = fakeDependencies();
    InspectorPanel.show(fakes.deps);
    const panel = stubWindow.webviewPanels[0]?.panel;
    assert.ok(panel !== undefined);
    fakes.session.onStatus.fire({ ...STATUS, tick: 1 });
    assert.deepEqual(received(panel), [], 'a page loading hears nothing: it asks `ready`');
    await ask(panel, 'ready');
    panel.posted.length = 0;
    fakes.session.onStatus.fire({ ...STATUS, tick: 2 });
    fakes.debuggedRun.onDebugged.fire(true);
    panel.setVisible(false);
    fakes.session.onStatus.fire({ ...STATUS, tick: 3 });
    fakes.session.onReset.fire({ ...STATUS, tick: 0 });
    panel.setVisible(true);
    fakes.session.onStatus.fire({ ...STATUS, tick: 4 });
    assert.deepEqual(
      // Each event by its tick (a resync: its status's), `debugged` by its body.
      received(panel).map((m) => [
        m[0],
        (m[1] as { tick?: number; status?: RunStatus }).tick ?? (m[1] as { status?: RunStatus }).status?.tick ?? m[1],
      ]),
      [
        ['status', 2],
        ['debugged', { debugged: true }],
        ['resync', 12],
        ['status', 4],
      ],
    );
    assert.deepEqual(
      fakes.calls.filter((c) => c[0] === 'visible'),
      [
        ['visible', false],
        ['visible', true],
      ],
    );
  });

  it('snapshot deltas within 50 ms are sent once, merged; a reset or a hidden page drops them', async (t) => {
    clock(t);
    const { fakes, panel } = await bootedPanel();
    const snapshots = () =>
      received(panel)
        .filter((m) => m[0] === 'snapshot')
        .map((m) => {
          const s = m[1] as Snapshot;
          return { version: s.version, ids: s.tasks.map((x) => x.id), removed: s.removed };
        });
    fakes.session.onSnapshot.fire({ snapshot: delta(1, [2, 3]) });
    t.mock.timers.tick(30);
    fakes.session.onSnapshot.fire({ snapshot: delta(2, [4], [3]) });
    t.mock.timers.tick(19);
    assert.deepEqual(snapshots(), []);
    t.mock.timers.tick(1);
    assert.deepEqual(snapshots(), [{ version: 2, ids: [2, 4], removed: [3] }]);
    // A window of its own for the next, timed from its first delta.
    fakes.session.onSnapshot.fire({ snapshot: delta(3, [5]) });
    t.mock.timers.tick(49);
    assert.equal(snapshots().length, 1);
    t.mock.timers.tick(1);
    assert.equal(snapshots().length, 2);
    // A reset drops what was pending.
    fakes.session.onSnapshot.fire({ snapshot: delta(4, [6]) });
    fakes.session.onReset.fire(STATUS);
    t.mock.timers.tick(50);
    // Hidden when the window ends: dropped (the resync sends the mirror).
    fakes.session.onSnapshot.fire({ snapshot: delta(5, [7]) });
    panel.setVisible(false);
    t.mock.timers.tick(50);
    fakes.session.onSnapshot.fire({ snapshot: delta(6, [8]) });
    t.mock.timers.tick(50);
    assert.deepEqual(snapshots(), [
      { version: 2, ids: [2, 4], removed: [3] },
      { version: 3, ids: [5], removed: [] },
    ]);
  });

  it('a reveal is held until the page can hear it: after `ready`, or once shown again', async (t) => {
    clock(t);
    const fakes = fakeDependencies();
    const inspector = InspectorPanel.show(fakes.deps, { view: 'graph' });
    const panel = stubWindow.webviewPanels[0]?.panel;
    assert.ok(panel !== undefined);
    assert.deepEqual(received(panel), []);
    await ask(panel, 'ready');
    assert.deepEqual(received(panel).at(-1)?.[0], 'response', 'the answer first');
    t.mock.timers.tick(0);
    assert.deepEqual(received(panel).at(-1), ['reveal', { view: 'graph' }]);
    panel.posted.length = 0;
    inspector.reveal({ view: 'tasks', taskId: 4 });
    panel.setVisible(false);
    inspector.reveal({ view: 'timeline' });
    panel.setVisible(true);
    assert.deepEqual(
      received(panel).map((m) => (m[0] === 'reveal' ? m : [m[0]])),
      [['reveal', { view: 'tasks', taskId: 4 }], ['resync'], ['reveal', { view: 'timeline' }]],
    );
  });

  it('requests are narrowed, then served by the dependency they name', async (t) => {
    clock(t);
    const { fakes, panel } = await bootedPanel();
    const answers = [
      await ask(panel, 'taskDetail', { taskId: 5 }),
      await ask(panel, 'variables', { handle: 3 }),
      await ask(panel, 'graph'),
      await ask(panel, 'openSource', { position: { file: '/w/a.ts', line: 4, column: 2 } }),
      await ask(panel, 'cancelTask', { taskId: 6 }),
      await ask(panel, 'control', { action: 'pause' }),
      await ask(panel, 'control', { action: 'continue' }),
      await ask(panel, 'control', { action: 'stepTick' }),
      await ask(panel, 'control', { action: 'stepTask', taskId: 7 }),
      await ask(panel, 'control', { action: 'stop' }),
      await ask(panel, 'seek', { tick: 9 }),
      await ask(panel, 'seek', { tick: null, moment: 'm1' }),
      await ask(panel, 'goToLogpointHit', { hit: 2 }),
      await ask(panel, 'followTask', { taskId: 8 }),
      await ask(panel, 'command', { command: 'showLog' }),
    ];
    assert.deepEqual(answers, [
      { taskId: 5, frames: [] },
      { answered: 'variables' },
      { answered: 'graph' },
      { opened: true },
      { cancelled: true },
      { tick: 13 },
      { tick: 14 },
      { tick: 15 },
      { tick: 16 },
      { tick: null },
      { tick: 9 },
      { tick: null, moment: 'm1' },
      {},
      {},
      {},
    ]);
    assert.deepEqual(fakes.calls, [
      ['host', 'taskDetail', { taskId: 5, locals: true, fromLogMeanwhile: true }],
      ['detailShown', { taskId: 5, frames: [] }],
      ['host', 'variables', { handle: 3 }],
      ['host', 'graph', {}],
      ['openSource', { file: '/w/a.ts', line: 4, column: 2 }],
      ['cancelTask', 6, 'inspector'],
      ['pause'],
      ['continue'],
      ['stepTick'],
      ['stepTask', 7],
      ['stopRun'],
      ['seek', 9, undefined],
      ['seek', null, 'm1'],
      ['goToHit', 2],
      ['followTask', 8],
      ['runCommand', 'showLog'],
    ]);
  });

  it('a request with malformed params is refused and reaches no dependency', async (t) => {
    clock(t);
    const { fakes, panel } = await bootedPanel();
    const answers = [
      await ask(panel, 'taskDetail', { taskId: -1 }),
      await ask(panel, 'variables', { handle: 0 }),
      await ask(panel, 'control', { action: 'stepTask' }),
      await ask(panel, 'control', { action: 'explode' }),
      await ask(panel, 'openSource', { position: { file: '/w/a.ts' } }),
      await ask(panel, 'followTask', {}),
      await ask(panel, 'command', { command: 'stop' }),
      await ask(panel, 'noSuchMethod'),
    ];
    assert.deepEqual(answers, [
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'badRequest' },
      { refused: 'unknownMethod' },
    ]);
    assert.deepEqual(fakes.calls, []);
  });

  it('a visible page that does not boot within 5 s is loaded again with its script inlined, at most three loads in all, then the user told', async (t) => {
    clock(t);
    stubWindow.pressButton = 'Reload Window';
    const fakes = fakeDependencies();
    // The extension's built page: its script and stylesheet, read for a load with them inlined.
    const ext = mkdtempSync(join(tmpdir(), 'coroscope-panel-ext-'));
    t.after(() => rmSync(ext, { recursive: true, force: true }));
    mkdirSync(join(ext, 'dist', 'webview'), { recursive: true });
    writeFileSync(join(ext, 'dist', 'webview', 'main.js'), 'boot("the panel");\n//# sourceMappingURL=main.js.map');
    writeFileSync(join(ext, 'dist', 'webview', 'main.css'), '.a { src: url("./codicon.ttf") }');
    InspectorPanel.show({
      ...fakes.deps,
      extensionUri: StubUri.file(ext) as unknown as PanelDependencies['extensionUri'],
    });
    const panel = stubWindow.webviewPanels[0]?.panel;
    assert.ok(panel !== undefined);
    const settled = async (): Promise<void> => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
    };
    t.mock.timers.tick(4999);
    assert.equal(panel.htmlLoads.length, 1);
    assert.match(panel.htmlLoads[0]!, /<script nonce="[^"]+" src="[^"]*main\.js"><\/script>/);
    t.mock.timers.tick(1);
    await settled();
    assert.equal(panel.htmlLoads.length, 2);
    assert.match(panel.htmlLoads[1]!, /<script nonce="[^"]+">boot\("the panel"\);/);
    assert.match(panel.htmlLoads[1]!, /sourceMappingURL=\S+\/dist\/webview\/main\.js\.map/);
    assert.match(panel.htmlLoads[1]!, /<style nonce="[^"]+">\.a \{ src: url\("\S+\/dist\/webview\/codicon\.ttf"\) \}/);
    const said = (): string[] => stubWindow.shown.map((m) => m.text);
    t.mock.timers.tick(5000);
    await settled();
    assert.deepEqual(said(), []);
    t.mock.timers.tick(5000);
    await settled();
    assert.equal(panel.htmlLoads.length, 3);
    t.mock.timers.tick(5000);
    assert.equal(panel.htmlLoads.length, 3);
    assert.equal(said().length, 1);
    assert.match(said()[0]!, /Coroscope Inspector did not start: its page was loaded 3 times/);
    await Promise.resolve();
    assert.deepEqual(
      stubWindow.executed.map((e) => e.command),
      ['workbench.action.reloadWindow'],
    );
    stubWindow.shown.length = 0;
    // A page that boots, or one hidden, is not loaded again.
    InspectorPanel.visiblePanel()?.dispose();
    InspectorPanel.show(fakes.deps);
    const booted = stubWindow.webviewPanels[1]?.panel;
    assert.ok(booted !== undefined);
    await ask(booted, 'ready');
    t.mock.timers.tick(5000);
    InspectorPanel.visiblePanel()?.dispose();
    InspectorPanel.show(fakes.deps);
    const hidden = stubWindow.webviewPanels[2]?.panel;
    assert.ok(hidden !== undefined);
    hidden.visible = false;
    t.mock.timers.tick(5000);
    assert.deepEqual([booted.htmlLoads.length, hidden.htmlLoads.length], [1, 1]);
    assert.deepEqual(said(), [], 'nothing said of a page that booted, or of one hidden');
  });

  it('closed: it hears the session no more, and its pending snapshot is never sent', async (t) => {
    clock(t);
    const { fakes, panel, inspector } = await bootedPanel();
    fakes.session.onSnapshot.fire({ snapshot: delta(1, [2]) });
    inspector.dispose();
    fakes.session.onStatus.fire(STATUS);
    fakes.logpointMarks.onMarks.fire([]);
    t.mock.timers.tick(5000);
    assert.deepEqual(received(panel), []);
    assert.deepEqual(fakes.calls, [['visible', false]]);
    assert.equal(InspectorPanel.visiblePanel(), null);
    const emitters = [
      ...Object.values(fakes.session).filter((v) => v instanceof CountedEmitter),
      fakes.logpointMarks.onMarks,
      fakes.debuggedRun.onDebugged,
    ];
    assert.deepEqual(
      emitters.map((e) => e.listening),
      Array(10).fill(0),
    );
  });
});
