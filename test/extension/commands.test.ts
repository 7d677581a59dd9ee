// The commands' handlers (extension/commands.ts) through the stub of the editor's API (debug/vscode-stub.ts)
// and fake services: how each reads its argument (a command link's or a test's) or asks for it, what it
// refuses and says (the window's messages, in order), what it asks of the run (launch, step, cancel, save,
// open) in order, and the sources a sample or walkthrough step opens, in which column. The run itself is not
// started: the services record what they are asked.
import { stubWindow, StubUri } from './debug/vscode-stub';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { LaunchOptions, LaunchTarget, TaskSummary } from '../../protocol/host-protocol';
import type { RunStatus } from '../../protocol/webview-protocol';
import { COMMANDS } from '../../extension/command-ids';
import { commandHandlers, type CoroscopeServices } from '../../extension/commands';
import { STATIC_SAMPLES } from '../../extension/sample-catalog';
import { makeTask } from '../webview/fixtures-tasks';

const EXTENSION = join(__dirname, '..', '..');

/** The crawl options the settings give by default (extension/settings.ts DEFAULTS). */
const CRAWL_DEFAULTS: LaunchOptions = {
  maxTasks: 10,
  maxRedirect: 10,
  maxTries: 4,
  exclude: null,
  strict: true,
  robots: true,
  inspect: true,
  stopOnEntry: false,
  record: true,
};

interface Fake {
  /** What the services were asked, in order. */
  readonly asked: unknown[];
  status: Partial<RunStatus>;
  run: { phase: string; isDebuggable(): boolean; endpoint?: { request(method: string): Promise<unknown> } } | null;
  tasks: TaskSummary[];
  fail: string | null;
  cancelled: boolean;
}

function servicesOf(fake: Fake): CoroscopeServices {
  const note =
    (what: string) =>
    async (...args: unknown[]): Promise<void> => {
      fake.asked.push([what, ...args]);
      if (fake.fail !== null) throw new Error(fake.fail);
    };
  const session = {
    pause: note('pause'),
    continue: note('continue'),
    stepTick: note('stepTick'),
    stepTask: note('stepTask'),
    ensureRun: note('ensureRun'),
    cancelTask: async (...args: unknown[]) => {
      fake.asked.push(['cancelTask', ...args]);
      return fake.cancelled;
    },
    openRecording: note('openRecording'),
    stop: note('stop'),
    compare: async (...args: unknown[]) => {
      fake.asked.push(['compare', ...args]);
      return fake.fail === null ? { state: 'done' } : { state: 'failed', error: fake.fail };
    },
    request: async (method: string, params: unknown) => {
      fake.asked.push(['request', method, params]);
      return { path: '/rec/run.corotrace', bytes: 20_480, ticks: 1234, tasks: 56 };
    },
    get status() {
      return { phase: 'finished', runId: 1, title: 'Crawl of the demo site', recorded: true, ...fake.status };
    },
    get run() {
      return fake.run;
    },
    mirror: { liveTasks: () => fake.tasks },
  };
  const services = {
    session,
    // The installed extension is this checkout: its samples' and crawler's sources are there to open.
    context: { extensionUri: { fsPath: EXTENSION } },
    output: { show: () => fake.asked.push(['showLog']) },
    showPanel: (reveal?: unknown) => fake.asked.push(['showPanel', reveal ?? null]),
    sourceColumn: () => 1,
    launch: async (target: LaunchTarget, options: LaunchOptions) => {
      fake.asked.push(['launch', target, options]);
    },
  };
  return services as unknown as CoroscopeServices;
}

let fake: Fake;
let run: (command: string, ...args: unknown[]) => Promise<void>;

beforeEach(() => {
  stubWindow.reset();
  fake = { asked: [], status: {}, run: null, tasks: [], fail: null, cancelled: true };
  const services = servicesOf(fake);
  const handlers = commandHandlers(() => services);
  run = (command, ...args) => handlers[command]!(...args);
});

describe('commands', () => {
  it('Run Crawl given URLs (a string or a list) crawls them with the crawl settings; a bad one is refused', async () => {
    await run(COMMANDS.runCrawl, 'a.test, https://b.test/x');
    await run(COMMANDS.runCrawl, ['http://c.test/', 7, 'demo']);
    await run(COMMANDS.runCrawl, 'ftp://d.test/');
    assert.deepEqual(fake.asked, [
      ['launch', { kind: 'crawl', urls: ['http://a.test/', 'https://b.test/x'] }, CRAWL_DEFAULTS],
      ['launch', { kind: 'crawl', urls: ['http://c.test/', 'http://demo/'] }, CRAWL_DEFAULTS],
    ]);
    assert.deepEqual(stubWindow.shown, [
      { kind: 'error', text: 'Coroscope: Only http and https URLs can be crawled: ftp://d.test/' },
    ]);
  });

  it('Run Crawl of the demo site: its pages and latency from the settings; a bad setting is warned of', async () => {
    stubWindow.settings.set('demoPages', 40);
    stubWindow.settings.set('demoLatency', 'instant');
    stubWindow.settings.set('maxTasks', -3);
    stubWindow.settings.set('exclude', '(');
    await run(COMMANDS.runCrawl, 'demo');
    // maxTasks out of its bounds: the default, silently; exclude not a pattern: none, and said so.
    assert.deepEqual(fake.asked, [['launch', { kind: 'demo', pages: 40, latency: 'instant' }, CRAWL_DEFAULTS]]);
    assert.deepEqual(
      stubWindow.shown.map((m) => [m.kind, m.text.replace(/\(.*\)/, '(why)')]),
      [['warning', 'Coroscope: coroscope.exclude is not a regular expression (why): ignored']],
    );
    stubWindow.settings.delete('exclude');
    // Asked in the pick: Enter on nothing typed is the demo site; text typed is what it says.
    stubWindow.quickPick = () => ({ typed: '' });
    await run(COMMANDS.runCrawl);
    stubWindow.quickPick = () => ({ typed: 'e.test' });
    await run(COMMANDS.runCrawl);
    stubWindow.quickPick = () => undefined;
    await run(COMMANDS.runCrawl);
    assert.deepEqual(
      fake.asked.slice(1).map((a) => (a as unknown[])[1]),
      [
        { kind: 'demo', pages: 40, latency: 'instant' },
        { kind: 'crawl', urls: ['http://e.test/'] },
      ],
    );
  });

  it('Step Task and Cancel Task: a task id or {taskId} given, else picked among the live tasks', async () => {
    await run(COMMANDS.stepTask, 4);
    await run(COMMANDS.stepTask, { taskId: 5 });
    await run(COMMANDS.cancelTask, 6);
    // None to pick from: said so, nothing asked.
    await run(COMMANDS.stepTask);
    fake.tasks = [
      makeTask(8, { name: 'worker-1', state: 'running' }),
      makeTask(9, { name: 'worker-2', state: 'suspended' }),
    ];
    let offered: string[] = [];
    stubWindow.quickPick = (items) => {
      offered = items.map((i) => i.label);
      return items[0];
    };
    await run(COMMANDS.stepTask, 'not an id');
    assert.deepEqual(offered, ['#9 worker-2'], 'only a task that can be stepped is offered');
    fake.cancelled = false;
    await run(COMMANDS.cancelTask, { taskId: 8 });
    assert.deepEqual(fake.asked, [
      ['stepTask', 4],
      ['stepTask', 5],
      ['cancelTask', 6, 'inspector'],
      ['stepTask', 9],
      ['cancelTask', 8, 'inspector'],
    ]);
    assert.deepEqual(stubWindow.shown, [
      { kind: 'info', text: 'Coroscope: no live task to choose from.' },
      { kind: 'info', text: 'Coroscope: task #8 could not be cancelled (it has finished).' },
    ]);
  });

  it('a move the run refuses is said in a notification naming the command', async () => {
    fake.fail = 'the run has ended';
    await run(COMMANDS.pause);
    await run(COMMANDS.stepTick);
    assert.deepEqual(stubWindow.shown, [
      { kind: 'error', text: 'Coroscope: Pause failed: the run has ended' },
      { kind: 'error', text: 'Coroscope: Step Tick failed: the run has ended' },
    ]);
  });

  it('Compare Approaches: pages given (latency 100 ms unless given), or picked; the dashboard shown first', async () => {
    await run(COMMANDS.compareApproaches, { pages: 10 });
    await run(COMMANDS.compareApproaches, { pages: 20, latencyMs: 0 });
    stubWindow.quickPick = () => undefined;
    await run(COMMANDS.compareApproaches, { pages: 0 });
    fake.fail = 'no demo site';
    await run(COMMANDS.compareApproaches, { pages: 5 });
    assert.deepEqual(fake.asked, [
      ['showPanel', { view: 'dashboard' }],
      ['compare', 10, 100],
      ['showPanel', { view: 'dashboard' }],
      ['compare', 20, 0],
      ['showPanel', { view: 'dashboard' }],
      ['compare', 5, 100],
    ]);
    assert.deepEqual(stubWindow.shown.at(-1), {
      kind: 'error',
      text: 'Coroscope: the comparison failed: no demo site',
    });
  });

  it('Save Recording: refused with why while the run goes; to the path given (its extension added); to a local file only', async () => {
    fake.status = { phase: 'running' };
    await run(COMMANDS.saveRecording, '/rec/a');
    fake.status = {};
    fake.run = { phase: 'finished', isDebuggable: () => true };
    await run(COMMANDS.saveRecording, '/rec/a');
    stubWindow.saveDialog = new StubUri('vscode-remote', '/far/b.corotrace');
    await run(COMMANDS.saveRecording);
    assert.deepEqual(fake.asked, [['request', 'saveRecording', { path: '/rec/a.corotrace' }]]);
    assert.deepEqual(stubWindow.shown, [
      {
        kind: 'error',
        text: 'Coroscope: cannot save a recording: the run is still going: save its recording once it has finished (or stop waiting with Coroscope: Stop, which discards it).',
      },
      {
        kind: 'info',
        text: 'Coroscope: saved the recording (1,234 ticks, 56 tasks, 20 KiB) to /rec/run.corotrace.',
      },
      {
        kind: 'error',
        text: 'Coroscope: a recording is written by the runtime host on this machine: choose a local file (not vscode-remote:).',
      },
    ]);
  });

  it('Open Recording: the path given or picked, the timeline shown; its failure said', async () => {
    await run(COMMANDS.openRecording, '/rec/x.corotrace');
    stubWindow.openDialog = [StubUri.file('/rec/y.corotrace')];
    fake.fail = 'not a recording';
    await run(COMMANDS.openRecording);
    stubWindow.openDialog = undefined;
    await run(COMMANDS.openRecording);
    assert.deepEqual(fake.asked, [
      ['showPanel', { view: 'timeline' }],
      ['openRecording', '/rec/x.corotrace'],
      ['showPanel', { view: 'timeline' }],
      ['openRecording', '/rec/y.corotrace'],
    ]);
    assert.deepEqual(stubWindow.shown, [
      { kind: 'error', text: 'Coroscope: could not open the recording not a recording' },
    ]);
  });

  it('Debug This Run: none to debug is said, with why; no debug session is started', async () => {
    await run(COMMANDS.debugRun);
    fake.run = { phase: 'finished', isDebuggable: () => false };
    await run(COMMANDS.debugRun);
    assert.deepEqual(stubWindow.shown, [
      {
        kind: 'info',
        text: 'Coroscope: no run to debug: start one first (Coroscope: Run Crawl, or a sample), or open a recording.',
      },
      {
        kind: 'info',
        text: 'Coroscope: no run to debug: the run has finished and was not recorded, so it has no past to step through (turn on the coroscope.record setting and run it again).',
      },
    ]);
    assert.deepEqual(stubWindow.startedDebugging, []);
  });

  it('Show Trace: the run made sure of, then the panel on its exceptions; a host that does not start is said', async () => {
    await run(COMMANDS.showTrace);
    fake.fail = 'spawn failed';
    await run(COMMANDS.showTrace);
    assert.deepEqual(fake.asked, [['ensureRun'], ['showPanel', { view: 'exceptions' }], ['ensureRun']]);
    assert.deepEqual(stubWindow.shown, [
      { kind: 'error', text: 'Coroscope: the runtime host did not start: spawn failed' },
    ]);
  });

  it("Open Tutorial Sample: the id given or picked; its source opened in the sources' column, then launched", async () => {
    stubWindow.settings.set('stopOnEntry', true);
    stubWindow.settings.set('inspection', false);
    await run(COMMANDS.openSample, 'blocking');
    // Not in the list: launched all the same (the host says whether it knows it), no source to open.
    await run(COMMANDS.openSample, 'no-such-sample');
    let offered: string[] = [];
    stubWindow.quickPick = (items) => {
      offered = items.map((i) => (i as { description?: string }).description ?? '');
      return items[0];
    };
    await run(COMMANDS.openSample);
    stubWindow.quickPick = () => undefined;
    await run(COMMANDS.openSample);
    const options = { inspect: false, stopOnEntry: true, record: true };
    assert.deepEqual(fake.asked, [
      ['launch', { kind: 'sample', id: 'blocking' }, options],
      ['launch', { kind: 'sample', id: 'no-such-sample' }, options],
      ['launch', { kind: 'sample', id: 'generators' }, options],
    ]);
    assert.deepEqual(stubWindow.opened, [
      { file: `${EXTENSION}/runtime/samples/blocking.ts`, viewColumn: 1, line: 0 },
      { file: `${EXTENSION}/runtime/samples/generators.ts`, viewColumn: 1, line: 0 },
    ]);
    assert.deepEqual(
      offered,
      STATIC_SAMPLES.map((x) => x.id),
    );
  });

  it("Open Tutorial Sample: the host's list when it gives one, the static list when it fails", async () => {
    const answers: Array<() => unknown> = [
      () => ({ samples: [{ id: 'host-only', title: 'From the host', chapter: 'c' }] }),
      () => {
        throw new Error('unknown method samples');
      },
    ];
    fake.run = {
      phase: 'paused',
      isDebuggable: () => true,
      endpoint: { request: async () => (answers.shift() ?? (() => null))() },
    };
    const offered: string[][] = [];
    stubWindow.quickPick = (items) => {
      offered.push(items.map((i) => (i as { description?: string }).description ?? ''));
      return items[0];
    };
    await run(COMMANDS.openSample);
    await run(COMMANDS.openSample);
    assert.deepEqual(offered, [['host-only'], STATIC_SAMPLES.map((x) => x.id)]);
    const options = { inspect: true, stopOnEntry: false, record: true };
    assert.deepEqual(fake.asked, [
      ['launch', { kind: 'sample', id: 'host-only' }, options],
      ['launch', { kind: 'sample', id: 'generators' }, options],
    ]);
    // The host's sample has no file to open; the static one's is opened.
    assert.deepEqual(stubWindow.opened, [
      { file: `${EXTENSION}/runtime/samples/generators.ts`, viewColumn: 1, line: 0 },
    ]);
  });

  it("a walkthrough's sample step: held at entry whatever the setting, beside; no id opens the sample pick", async () => {
    stubWindow.settings.set('stopOnEntry', false);
    await run(COMMANDS.openSampleStep, { id: 'blocking' });
    await run(COMMANDS.openSampleStep, {});
    assert.deepEqual(fake.asked, [
      ['launch', { kind: 'sample', id: 'blocking' }, { inspect: true, stopOnEntry: true, record: true }],
    ]);
    // The walkthrough in column 1: the source beside it, in 2.
    assert.deepEqual(stubWindow.opened, [{ file: `${EXTENSION}/runtime/samples/blocking.ts`, viewColumn: 2, line: 0 }]);
    assert.deepEqual(stubWindow.executed, [{ command: COMMANDS.openSample, args: [] }]);
  });

  it("the walkthrough's crawl step: the crawler's source beside, the demo crawl launched not held at entry", async () => {
    stubWindow.settings.set('stopOnEntry', true);
    stubWindow.settings.set('demoPages', 30);
    await run(COMMANDS.crawlStep);
    assert.deepEqual(stubWindow.opened, [{ file: `${EXTENSION}/runtime/crawler/crawler.ts`, viewColumn: 2, line: 0 }]);
    assert.deepEqual(fake.asked, [
      ['launch', { kind: 'demo', pages: 30, latency: 'realistic' }, { ...CRAWL_DEFAULTS, stopOnEntry: false }],
    ]);
  });

  it('Open Inspector, Show Log, Stop, Continue: each asks its one thing', async () => {
    await run(COMMANDS.openInspector);
    await run(COMMANDS.showLog);
    await run(COMMANDS.continue);
    await run(COMMANDS.stop);
    assert.deepEqual(fake.asked, [['showPanel', null], ['showLog'], ['continue'], ['stop']]);
    assert.deepEqual(stubWindow.shown, []);
  });
});
