// The debugger's registration (extension/debug/register.ts) through the stub of the editor's API
// (vscode-stub.ts), a real adapter (CoroscopeSession) attached to a fake run (fake-debug-host.ts): what
// is registered, and gone once the subscriptions are disposed; the configuration provider's answers (a
// default with no launch.json, defaults filled, a sample or a run picked, the record setting); the
// "Pick a Run" command; the Call Stack watch (only a coroscope session's selected thread, while the
// extension wants it); the debugged runs told on each change, with their "Follow This Task"; a
// session's logpoint hits; Go to Last / Next Change and Follow This Task on the items VS Code passes.
import { type StubDebugSession, StubUri, stubDebug, stubWindow } from './vscode-stub';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import type { CoroscopeSession } from '../../../extension/debug/coroscope-session';
import {
  FOLLOW_TASK_COMMAND,
  LAST_CHANGE_COMMAND,
  NEXT_CHANGE_COMMAND,
} from '../../../extension/debug/coroutines-view-ids';
import { COROUTINES_VIEW_ID, REFRESH_COMMAND, REVEAL_TASK_COMMAND } from '../../../extension/debug/coroutines-view';
import { FOLLOW_TASK_REQUEST, TASKS_REQUEST } from '../../../extension/debug/custom-requests';
import {
  DEMO_CRAWL,
  KNOWN_SAMPLES,
  PICK_RUN_COMMAND,
  providedConfigurations,
} from '../../../extension/debug/debug-configurations';
import { LOGPOINT_HIT_REQUEST, LOGPOINT_HITS_EVENT } from '../../../extension/debug/past-logpoints';
import {
  DEBUG_TYPE,
  type DebuggedRunSession,
  registerDebugger,
  type StackWatch,
} from '../../../extension/debug/register';
import { LAST_CHANGE_REQUEST, NEXT_CHANGE_REQUEST } from '../../../extension/debug/session-changes';
import type { RunRegistry } from '../../../extension/runs/run-registry';
import { attachedInProcess } from './adapter-harness';
import type { DapClient } from './dap-client';
import { FakeRun, FakeRuns } from './fake-debug-host';

const TIMEOUT = 5000;

/** A run as the pick list reads one. */
interface ListedRun {
  key: number;
  title: string;
  phase: string;
  pid: number | null;
  viewers(): string[];
}

const listed = (key: number, phase: string, viewers: string[] = []): ListedRun => ({
  key,
  title: `run ${key}`,
  phase,
  pid: 100 + key,
  viewers: () => viewers,
});

/** What the registration was given, and what it told. */
interface Registered {
  context: { subscriptions: Array<{ dispose(): void }> };
  run: FakeRun;
  /** The runs a debugger can attach to (the pick list), as a test sets them. */
  debuggable: ListedRun[];
  stackShown: Array<{ run: unknown; detail: { task: { name: string }; frames: readonly string[] } }>;
  /** Whether the extension still wants the Call Stack's selection. */
  wanted: boolean;
  sessionsTold: DebuggedRunSession[][];
  hits: Array<{ run: unknown; body: unknown; session: { goTo(hit: number): Thenable<unknown>; ended(): boolean } }>;
}

let registered: Registered | null = null;
const daps: DapClient[] = [];

function register(): Registered {
  const run = new FakeRun('paused');
  run.lastPause = { reason: 'pause', tick: 5, description: 'Paused after tick 5' };
  const fake = new FakeRuns(run);
  const r: Registered = {
    context: { subscriptions: [] },
    run,
    debuggable: [],
    stackShown: [],
    wanted: true,
    sessionsTold: [],
    hits: [],
  };
  // The registry as the adapter (get, start) and the pick list (debuggable) use it.
  const runs = { get: (key: number) => fake.get(key), start: () => fake.start(), debuggable: () => r.debuggable };
  const watch: StackWatch = {
    wanted: () => r.wanted,
    shown: (run, detail) => r.stackShown.push({ run, detail }),
  };
  registerDebugger(
    r.context as unknown as vscode.ExtensionContext,
    '/nonexistent/runtime-host.js',
    runs as unknown as RunRegistry,
    watch,
    (run, body, session) => r.hits.push({ run, body, session }),
    (sessions) => r.sessionsTold.push(sessions),
  );
  registered = r;
  return r;
}

/** A debug session as VS Code hands one, logging the custom requests it is asked; `answer` answers them. */
function sessionOf(
  id: string,
  type = DEBUG_TYPE,
  answer: (command: string, args: unknown) => Promise<unknown> = async () => ({}),
): StubDebugSession & { id: string; name: string; asked: Array<[string, unknown]> } {
  const asked: Array<[string, unknown]> = [];
  return {
    id,
    name: `session ${id}`,
    type,
    asked,
    customRequest: (command, args) => {
      asked.push([command, args]);
      return answer(command, args);
    },
  };
}

/** The adapter the factory makes for `session`, attached to the fake run as VS Code would start it. */
async function adapterAttached(session: StubDebugSession): Promise<DapClient> {
  const factory = stubDebug.adapterFactories.get(DEBUG_TYPE) as vscode.DebugAdapterDescriptorFactory;
  const descriptor = factory.createDebugAdapterDescriptor(session as unknown as vscode.DebugSession, undefined);
  const adapter = (descriptor as unknown as { implementation: CoroscopeSession }).implementation;
  const dap = await attachedInProcess(adapter, { run: 1 }, { timeoutMs: TIMEOUT });
  daps.push(dap);
  await dap.waitForEvent('stopped', { from: 0, timeoutMs: TIMEOUT });
  return dap;
}

function provider(trigger: 'initial' | 'dynamic'): vscode.DebugConfigurationProvider {
  const kind = trigger === 'initial' ? 1 : 2;
  const found = stubDebug.configurationProviders.find((p) => p.type === DEBUG_TYPE && p.trigger === kind);
  assert.ok(found !== undefined, `a ${trigger} provider is registered`);
  return found.provider as vscode.DebugConfigurationProvider;
}

function resolve(config: Record<string, unknown>, folder?: string): Promise<unknown> {
  const f = folder === undefined ? undefined : { uri: StubUri.file(folder), name: 'w', index: 0 };
  const p = provider('dynamic');
  assert.ok(p.resolveDebugConfiguration !== undefined);
  return Promise.resolve(
    p.resolveDebugConfiguration(
      f as unknown as vscode.WorkspaceFolder,
      config as vscode.DebugConfiguration,
      undefined as unknown as vscode.CancellationToken,
    ),
  );
}

function command(id: string): (...args: unknown[]) => unknown {
  const run = stubWindow.commands.get(id);
  assert.ok(run !== undefined, `${id} is registered`);
  return run;
}

/** Lets the listeners' promises (a request's answer) settle. */
const settled = () => new Promise((r) => setImmediate(r));

beforeEach(() => stubWindow.reset());
afterEach(async () => {
  for (const d of registered?.context.subscriptions ?? []) d.dispose();
  registered = null;
  stubDebug.activeDebugSession = undefined;
  for (const dap of daps.splice(0)) await dap.close();
});

describe("the debugger's registration", () => {
  it('registers the adapter, both providers, the commands and the Coroutines view; disposed, all go', () => {
    const r = register();
    assert.deepEqual([...stubDebug.adapterFactories.keys()], [DEBUG_TYPE]);
    assert.deepEqual(
      stubDebug.configurationProviders.map((p) => [p.type, p.trigger]),
      [
        [DEBUG_TYPE, 1],
        [DEBUG_TYPE, 2],
      ],
    );
    assert.deepEqual(
      [...stubWindow.commands.keys()].sort(),
      [
        PICK_RUN_COMMAND,
        REFRESH_COMMAND,
        REVEAL_TASK_COMMAND,
        LAST_CHANGE_COMMAND,
        NEXT_CHANGE_COMMAND,
        FOLLOW_TASK_COMMAND,
        // The logpoint hit links' handler and the deadlock notice register no command.
      ].sort(),
    );
    assert.deepEqual(
      stubWindow.treeViews.map((v) => v.id),
      [COROUTINES_VIEW_ID],
    );
    assert.ok(stubWindow.uriHandler !== undefined, "the logpoint hit links' handler");
    for (const d of r.context.subscriptions) d.dispose();
    registered = null;
    assert.deepEqual(
      [stubDebug.adapterFactories.size, stubDebug.configurationProviders.length, stubWindow.commands.size],
      [0, 0, 0],
    );
    assert.equal(stubWindow.uriHandler, undefined);
  });

  it('the Coroutines view asks the active session for its tasks at start, when shown, and on Refresh', async () => {
    const active = sessionOf('s1');
    stubDebug.activeDebugSession = active;
    register();
    const tree = stubWindow.treeViews[0];
    assert.ok(tree !== undefined);
    assert.deepEqual(tree.options, {
      treeDataProvider: (tree.options as { treeDataProvider: unknown }).treeDataProvider,
      showCollapseAll: true,
    });
    await settled();
    tree.visibility.fire({ visible: false });
    await settled();
    const hidden = active.asked.length;
    tree.visibility.fire({ visible: true });
    await settled();
    await command(REFRESH_COMMAND)();
    await settled();
    assert.deepEqual([hidden, active.asked.map(([c]) => c)], [1, [TASKS_REQUEST, TASKS_REQUEST, TASKS_REQUEST]]);
  });

  it('provides no configuration for a new launch.json, the dynamic ones by the active file', () => {
    register();
    const initial = provider('initial');
    const dynamic = provider('dynamic');
    assert.deepEqual(initial.provideDebugConfigurations?.(undefined), providedConfigurations('initial', false));
    assert.deepEqual(dynamic.provideDebugConfigurations?.(undefined), providedConfigurations('dynamic', false));
    const editorOf = (scheme: string, languageId: string) => ({
      document: { uri: new StubUri(scheme, '/w/app.ts'), languageId },
    });
    const answers: boolean[] = [];
    for (const editor of [
      editorOf('file', 'typescript'),
      editorOf('file', 'javascript'),
      editorOf('untitled', 'typescript'),
      editorOf('file', 'python'),
    ]) {
      stubWindow.activeEditor = editor;
      const got = dynamic.provideDebugConfigurations?.(undefined);
      answers.push(JSON.stringify(got) === JSON.stringify(providedConfigurations('dynamic', true)));
    }
    assert.deepEqual(answers, [true, true, false, false]);
  });

  it('F5 with no launch.json crawls the demo site; a configuration gets its defaults', async () => {
    register();
    const demo = await resolve({});
    assert.deepEqual(demo, DEMO_CRAWL);
    assert.notEqual(demo, DEMO_CRAWL, 'a copy: VS Code may change what it is given');
    assert.deepEqual(await resolve({ type: DEBUG_TYPE, sample: 'generators' }, '/w'), {
      sample: 'generators',
      type: DEBUG_TYPE,
      request: 'launch',
      name: 'Coroscope',
      cwd: '/w',
      record: true,
    });
    // The configuration's own cwd and record are kept; the setting decides a record left unsaid.
    assert.deepEqual(
      await resolve({ type: DEBUG_TYPE, request: 'launch', name: 'n', crawl: 'demo', cwd: '/c', record: false }, '/w'),
      { type: DEBUG_TYPE, request: 'launch', name: 'n', crawl: 'demo', cwd: '/c', record: false },
    );
    stubWindow.settings.set('record', false);
    assert.deepEqual(await resolve({ name: 'n', crawl: 'demo' }), {
      name: 'n',
      crawl: 'demo',
      type: DEBUG_TYPE,
      request: 'launch',
      record: false,
    });
    stubWindow.settings.set('record', 'yes');
    assert.equal(((await resolve({ name: 'n', crawl: 'demo' })) as { record: unknown }).record, true);
    assert.deepEqual(stubWindow.quickPicks, []);
  });

  it('`"sample": ""` asks which sample; dismissed, nothing is started', async () => {
    register();
    stubWindow.quickPick = (items) => items.find((i) => i.label === 'callbacks');
    assert.deepEqual(await resolve({ name: 'n', sample: '' }), {
      name: 'n',
      sample: 'callbacks',
      type: DEBUG_TYPE,
      request: 'launch',
      record: true,
    });
    assert.deepEqual(
      stubWindow.quickPicks[0]?.items.map((i) => i.label),
      KNOWN_SAMPLES.map((s) => s.id),
    );
    stubWindow.quickPick = () => undefined;
    assert.equal(await resolve({ name: 'n', sample: '' }), undefined);
  });

  it('an attach without a run: none to attach to refuses, one is taken, of several one is picked', async () => {
    const r = register();
    assert.equal(await resolve({ request: 'attach', name: 'a' }), undefined);
    assert.deepEqual(
      stubWindow.shown.map((s) => s.kind),
      ['error'],
    );
    r.debuggable = [listed(3, 'running')];
    assert.deepEqual(await resolve({ request: 'attach', name: 'a', run: '' }), {
      request: 'attach',
      name: 'a',
      run: 3,
      type: DEBUG_TYPE,
    });
    assert.equal(stubWindow.quickPicks.length, 0, 'the only run is taken without asking');
    r.debuggable = [listed(3, 'running', ['the inspector panel']), listed(4, 'finished')];
    stubWindow.quickPick = (items) => items[1];
    assert.deepEqual(await resolve({ request: 'attach', name: 'a' }), {
      request: 'attach',
      name: 'a',
      run: 4,
      type: DEBUG_TYPE,
    });
    assert.deepEqual(
      stubWindow.quickPicks[0]?.items.map((i) => (i as { key?: unknown }).key),
      [3, 4],
    );
    stubWindow.quickPick = () => undefined;
    assert.equal(await resolve({ request: 'attach', name: 'a' }), undefined);
    // A run named is attached to as named, nothing asked.
    assert.deepEqual(await resolve({ request: 'attach', name: 'a', run: 9 }), {
      request: 'attach',
      name: 'a',
      run: 9,
      type: DEBUG_TYPE,
    });
    assert.equal(stubWindow.quickPicks.length, 2);
  });

  it('"Pick a Run" answers the key of the run picked, or undefined', async () => {
    const r = register();
    const pick = command(PICK_RUN_COMMAND);
    assert.equal(await pick(), undefined);
    r.debuggable = [listed(7, 'paused')];
    assert.equal(await pick(), '7');
    r.debuggable = [listed(7, 'paused'), listed(8, 'running')];
    stubWindow.quickPick = (items) => items[1];
    assert.equal(await pick(), '8');
  });
});

describe("the debugger's sessions", () => {
  it("a coroscope session's thread selected in the Call Stack: its task's stack is told, while wanted", async () => {
    const r = register();
    const tasks = {
      tasks: [
        { id: 2, name: 'worker-1', state: 'suspended', frames: ['work (app.ts:4)', 'main (app.ts:9)'] },
        { id: 3, name: 'worker-2', state: 'suspended', frames: [] },
      ],
    };
    const ours = sessionOf('s1', DEBUG_TYPE, async (command) => (command === TASKS_REQUEST ? tasks : {}));
    await adapterAttached(ours);
    const stranger = sessionOf('s9', DEBUG_TYPE, async () => tasks);
    const other = sessionOf('n1', 'node', async () => tasks);
    stubDebug.changedStackItem.fire({ session: ours, threadId: 2 });
    stubDebug.changedStackItem.fire({ session: ours, threadId: 99 });
    stubDebug.changedStackItem.fire({ session: stranger, threadId: 2 });
    stubDebug.changedStackItem.fire({ session: other, threadId: 2 });
    stubDebug.changedStackItem.fire(undefined);
    await settled();
    assert.deepEqual(r.stackShown, [
      { run: r.run, detail: { task: { name: 'worker-1' }, frames: ['work (app.ts:4)', 'main (app.ts:9)'] } },
    ]);
    assert.deepEqual([ours.asked.length, stranger.asked.length, other.asked.length], [2, 0, 0]);
    // Once the walkthrough has what it needed, nothing is asked.
    r.wanted = false;
    stubDebug.changedStackItem.fire({ session: ours, threadId: 3 });
    await settled();
    assert.deepEqual([r.stackShown.length, ours.asked.length], [1, 2]);
  });

  it('a session that ended meanwhile (its request refused) tells nothing', async () => {
    const r = register();
    const ours = sessionOf('s1', DEBUG_TYPE, async () => {
      throw new Error('the session ended');
    });
    await adapterAttached(ours);
    stubDebug.changedStackItem.fire({ session: ours, threadId: 2 });
    await settled();
    assert.deepEqual(r.stackShown, []);
  });

  it('the debugged runs are told at each change, each with its Follow This Task; an ended one goes', async () => {
    const r = register();
    const ours = sessionOf('s1');
    stubDebug.started.fire(ours);
    await adapterAttached(ours);
    stubDebug.changedActive.fire(ours);
    assert.deepEqual(
      r.sessionsTold.map((told) => told.map((s) => s.run)),
      [[], [r.run]],
    );
    const [told] = r.sessionsTold[1] ?? [];
    await told?.followTask(4);
    assert.deepEqual(ours.asked, [[FOLLOW_TASK_REQUEST, { threadId: 4 }]]);
    stubDebug.terminated.fire(ours);
    assert.deepEqual(r.sessionsTold.at(-1), []);
  });

  it("a coroscope session's logpoint hits are heard with its run, how to go to one, whether it ended", async () => {
    const r = register();
    const ours = sessionOf('s1');
    await adapterAttached(ours);
    const body = { hits: [{ index: 0, tick: 3 }] };
    stubDebug.customEvent.fire({ session: ours, event: LOGPOINT_HITS_EVENT, body });
    stubDebug.customEvent.fire({ session: ours, event: 'coroscope/tasksChanged', body });
    stubDebug.customEvent.fire({ session: sessionOf('n1', 'node'), event: LOGPOINT_HITS_EVENT, body });
    // A session of ours the factory does not know: its run is not known.
    stubDebug.customEvent.fire({ session: sessionOf('s9'), event: LOGPOINT_HITS_EVENT, body: null });
    assert.deepEqual(
      r.hits.map((h) => [h.run, h.body]),
      [
        [r.run, body],
        [null, null],
      ],
    );
    const heard = r.hits[0];
    assert.ok(heard !== undefined);
    await heard.session.goTo(5);
    assert.deepEqual(ours.asked, [[LOGPOINT_HIT_REQUEST, { hit: 5 }]]);
    assert.equal(heard.session.ended(), false);
    stubDebug.terminated.fire(ours);
    assert.equal(heard.session.ended(), true);
  });
});

describe('Go to Last / Next Change and Follow This Task', () => {
  const item = { container: { variablesReference: 7 }, variable: { name: 'count' } };

  it('ask the active coroscope session for the variable VS Code passes', async () => {
    register();
    const active = sessionOf('s1');
    stubDebug.activeDebugSession = active;
    await command(LAST_CHANGE_COMMAND)(item);
    await command(NEXT_CHANGE_COMMAND)({ ...item, variable: { name: 'other', value: '3' } });
    await command(FOLLOW_TASK_COMMAND)({ sessionId: 's1', threadId: 4 });
    assert.deepEqual(active.asked, [
      [LAST_CHANGE_REQUEST, { variablesReference: 7, name: 'count' }],
      [NEXT_CHANGE_REQUEST, { variablesReference: 7, name: 'other' }],
      [FOLLOW_TASK_REQUEST, { threadId: 4 }],
    ]);
    assert.deepEqual(stubWindow.shown, []);
  });

  it('an item that names no variable, or no coroscope session: a warning for a change, nothing asked', async () => {
    register();
    const active = sessionOf('s1');
    stubDebug.activeDebugSession = active;
    const bad: unknown[] = [
      undefined,
      null,
      'count',
      { variable: { name: 'count' } },
      { container: { variablesReference: '7' }, variable: { name: 'count' } },
      { container: { variablesReference: 7 }, variable: { name: 3 } },
      { container: null, variable: null },
    ];
    for (const b of bad) await command(LAST_CHANGE_COMMAND)(b);
    const node = sessionOf('n1', 'node');
    stubDebug.activeDebugSession = node;
    await command(NEXT_CHANGE_COMMAND)(item);
    stubDebug.activeDebugSession = undefined;
    await command(NEXT_CHANGE_COMMAND)(item);
    assert.deepEqual(
      stubWindow.shown.map((s) => s.kind),
      Array(bad.length + 2).fill('warning'),
    );
    assert.deepEqual([active.asked, node.asked], [[], []]);
    // Follow This Task says nothing for an item without a thread or outside a coroscope session.
    stubWindow.shown.length = 0;
    stubDebug.activeDebugSession = active;
    for (const b of [undefined, { threadId: '4' }, { sessionId: 's1' }]) await command(FOLLOW_TASK_COMMAND)(b);
    node.asked.length = 0;
    stubDebug.activeDebugSession = node;
    await command(FOLLOW_TASK_COMMAND)({ threadId: 4 });
    assert.deepEqual([active.asked, node.asked, stubWindow.shown], [[], [], []]);
  });

  it("the session's refusal is shown as a warning that carries its reason", async () => {
    register();
    stubDebug.activeDebugSession = sessionOf('s1', DEBUG_TYPE, async () => {
      throw new Error('no change of count before line 4');
    });
    await command(LAST_CHANGE_COMMAND)(item);
    await command(FOLLOW_TASK_COMMAND)({ threadId: 4 });
    assert.deepEqual(
      stubWindow.shown.map((s) => [s.kind, s.text.includes('no change of count before line 4')]),
      [
        ['warning', true],
        ['warning', true],
      ],
    );
  });
});
