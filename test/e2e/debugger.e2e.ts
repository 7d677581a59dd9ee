/**
 * End-to-end test of the `coroscope` debugger in a real VS Code (code-server 4.100.3, in
 * Debian's Chromium through playwright-core): with the packaged extension installed and a
 * workspace whose launch.json has a `coroscope` configuration (the demo crawl, stopped on
 * entry), "Debug: Start Debugging" shows the tasks as threads in the Call Stack view; a step
 * into the crawl task creates its workers (more threads) and the Variables view shows the
 * locals of its coroutine frames; the Coroutines view groups the tasks; a worker's stack
 * looked at in the Call Stack completes the walkthrough's first step ("Crawl, pause, look");
 * stopping the session ends it.
 *
 * Installs the packaged extension (built by `npm run package` unless E2E_SKIP_PACKAGE=1 finds
 * coroscope.vsix, or COROSCOPE_VSIX=path). Needs code-server (test/e2e/setup/install-code-server.sh).
 *
 * Run: node --import tsx --test test/e2e/debugger.e2e.ts
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import {
  clickRowAction,
  debugViewRows,
  expandedViewPane,
  runCommand,
  screenshot,
  startDebugConfiguration,
  until,
} from './support/browser';
import { openWalkthrough, walkthroughStep } from './support/walkthrough';
import { useWorkbenchSuite } from './support/workbench-suite';
import { CRAWL_STEP_ID } from '../../extension/walkthrough';

const MAX_TASKS = 4;
const STEP_TIMEOUT_MS = 30_000;

const LAUNCH_JSON = {
  version: '0.2.0',
  configurations: [
    {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: crawl the demo site',
      crawl: 'demo',
      maxTasks: MAX_TASKS,
      stopOnEntry: true,
    },
  ],
};

describe('the coroscope debugger in VS Code (code-server)', { timeout: 240_000 }, () => {
  const { page, step } = useWorkbenchSuite({
    name: 'debugger',
    files: {
      '.vscode/launch.json': `${JSON.stringify(LAUNCH_JSON, null, 2)}\n`,
      'README.md': '# Coroscope debugger e2e workspace\n',
    },
    installExtension: true,
    // Keep the Run and Debug view on screen for every stop.
    settings: { 'debug.openDebug': 'openOnSessionStart', 'debug.toolBarLocation': 'floating' },
    viewport: { width: 1400, height: 1000 },
    logServerOnFailure: true,
  });

  step('starting the coroscope configuration stops on entry with the crawl task as a thread', async () => {
    const p = page();
    await startDebugConfiguration(p, LAUNCH_JSON.configurations[0]!.name, STEP_TIMEOUT_MS);
    await debugViewRows(p, 'debug-call-stack', /crawl \[scheduled\]/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(p, 'debug-call-stack', /event loop \[paused/)
      .first()
      .waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-entry');
  });

  step('a step into the crawl task shows its workers as threads in the Call Stack view', async () => {
    const p = page();
    await runCommand(p, 'Debug: Step Into');
    // crawl ran its first step: it created maxTasks workers and now awaits the queue's join().
    await debugViewRows(p, 'debug-call-stack', /crawl \[suspended: queue\.join\]/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    for (const n of [1, MAX_TASKS])
      await debugViewRows(p, 'debug-call-stack', new RegExp(`worker-${n} \\[`))
        .first()
        .waitFor({ state: 'visible' });
    // The crawl thread's stack: the await label and the coroutine frames with their files.
    await debugViewRows(p, 'debug-call-stack', /awaiting queue\.join/)
      .first()
      .waitFor({ state: 'visible' });
    await debugViewRows(p, 'debug-call-stack', /crawler\.ts/)
      .first()
      .waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-threads');
  });

  step('the Variables view shows the locals of the crawl frame', async () => {
    const p = page();
    // Select the crawl frame (its row names the function and crawler.ts).
    const crawlFrame = p
      .locator('.debug-call-stack .monaco-list-row')
      .filter({ has: p.locator('.stack-frame') })
      .filter({ hasText: /^\s*crawl\s*crawler\.ts/ });
    // crawl() holds `this` (the Crawler) and the running loop (an EventLoop, whatever the
    // bundle named the local). The call stack re-renders as thread events arrive, so a click
    // can land while a row moves: click again until the crawl frame's locals show.
    const crawlerRow = debugViewRows(p, 'debug-variables', /^\s*this\s*[:=]?\s*Crawler/).first();
    for (let attempt = 1; ; attempt++) {
      await crawlFrame.first().click();
      try {
        await crawlerRow.waitFor({ state: 'visible', timeout: 15_000 });
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
    await debugViewRows(p, 'debug-variables', /^\s*Locals/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(p, 'debug-variables', /^\s*Task\b/)
      .first()
      .waitFor({ state: 'visible' });
    await debugViewRows(p, 'debug-variables', /[:=]\s*EventLoop\b/)
      .first()
      .waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-variables');
  });

  step('the Coroutines view groups the tasks by state and what they await', async () => {
    const p = page();
    const pane = await expandedViewPane(p, /Coroutines/i, STEP_TIMEOUT_MS);
    // crawl suspended in join(), its workers scheduled: "<N> live tasks · tick 1 · paused".
    await pane
      .filter({ hasText: new RegExp(`${MAX_TASKS + 1} live tasks`) })
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await pane
      .locator('.monaco-list-row')
      .filter({ hasText: new RegExp(`scheduled \\(${MAX_TASKS}\\)`) })
      .first()
      .waitFor({ state: 'visible' });
    await pane
      .locator('.monaco-list-row')
      .filter({ hasText: /worker-1 #\d+/ })
      .first()
      .waitFor({ state: 'visible' });
    await screenshot(p, 'debugger-coroutines-view');
  });

  step("a worker's stack looked at in the Call Stack completes the walkthrough's first step", async () => {
    const p = page();
    await openWalkthrough(p);
    assert.equal(
      await walkthroughStep(p, CRAWL_STEP_ID).getAttribute('aria-checked'),
      'false',
      'not done by the crawl frame alone',
    );
    // Room for the workers' rows in the Call Stack: the Coroutines view and the crawl thread folded.
    await p
      .locator('.pane-header', { hasText: /^\s*Coroutines/i })
      .first()
      .click();
    const crawlThread = debugViewRows(p, 'debug-call-stack', /crawl \[/).first();
    await crawlThread.click();
    await p.keyboard.press('ArrowLeft');
    // worker-1 runs its first step (the row's own Step Into) and suspends in fetch, with frames.
    const worker1 = debugViewRows(p, 'debug-call-stack', /worker-1 \[/).first();
    await worker1.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await clickRowAction(worker1, '.codicon-debug-step-into', STEP_TIMEOUT_MS);
    await until('worker-1 suspended', async () => /suspended/.test(await worker1.innerText()), STEP_TIMEOUT_MS);
    // Its first frame (work, in crawler.ts) selected.
    const workFrame = p
      .locator('.debug-call-stack .monaco-list-row')
      .filter({ has: p.locator('.stack-frame') })
      .filter({ hasText: /^\s*work\s*crawler\.ts/ })
      .first();
    await until(
      "the worker's work frame",
      async () => {
        if (!(await workFrame.isVisible())) await worker1.click();
        return workFrame.isVisible();
      },
      STEP_TIMEOUT_MS,
    );
    await workFrame.click();
    // The frame's source opened over the walkthrough: back to it.
    await openWalkthrough(p);
    await until(
      'the first step to be checked',
      async () => (await walkthroughStep(p, CRAWL_STEP_ID).getAttribute('aria-checked')) === 'true',
      STEP_TIMEOUT_MS,
    );
    await screenshot(p, 'debugger-walkthrough-step-done');
  });

  step('stopping the session ends it', async () => {
    const p = page();
    await runCommand(p, 'Debug: Stop');
    await debugViewRows(p, 'debug-call-stack', /crawl \[/)
      .first()
      .waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
  });
});
