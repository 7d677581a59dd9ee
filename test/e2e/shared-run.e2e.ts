/**
 * One run, many views, end to end in a real VS Code (code-server 4.100.3, in Debian's
 * Chromium through playwright-core), with the packaged extension installed:
 *
 * - Starting the `coroscope` launch configuration (the demo crawl, stopped on entry) shows its
 *   run in the Coroscope panel: the panel lists the same tasks (same ids) as the debugger's
 *   Coroutines view, and Step Over in Run and Debug changes the panel's tick and the stack it
 *   shows for the crawl task. Debug: Stop ends the run for the panel too.
 * - The other way: "Coroscope: Run Crawl…" from the palette, then "Coroscope: Debug This Run":
 *   the Call Stack lists its tasks; Continue then Pause in the panel move the debugger
 *   (running, then stopped); Stop in the panel ends the debug session.
 *
 * Each run has exactly one runtime host process (counted in /proc under the server's
 * extensions folder), however many views look at it.
 *
 * Needs the packaged extension (`npm run package` → coroscope.vsix, or COROSCOPE_VSIX) and
 * code-server (test/e2e/setup/install-code-server.sh).
 * Run: node --import tsx --test test/e2e/shared-run.e2e.ts
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { Frame, Locator } from 'playwright-core';
import {
  debugViewRows,
  expandedViewPane,
  quickOpen,
  runCommand,
  screenshot,
  startDebugConfiguration,
  until,
} from './support/browser';
import { runtimeHostPids } from './support/code-server';
import { inspectorPanel, panelPhase, runDetail, stackFrameNames, startDemoCrawl } from './support/inspector-panel';
import { debugThisRun } from './support/line-debugging';
import { useWorkbenchSuite } from './support/workbench-suite';

const MAX_TASKS = 3;
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

describe('one run seen by the panel and the debugger (code-server)', { timeout: 300_000 }, () => {
  const suite = useWorkbenchSuite({
    name: 'shared-run',
    files: {
      '.vscode/launch.json': `${JSON.stringify(LAUNCH_JSON, null, 2)}\n`,
      'README.md': '# Coroscope shared-run e2e workspace\n',
    },
    installExtension: true,
    settings: {
      'debug.openDebug': 'openOnSessionStart',
      'debug.toolBarLocation': 'floating',
      'workbench.editor.enablePreview': false,
      // The palette's crawl: held at entry, then long enough to pause it while it runs.
      'coroscope.stopOnEntry': true,
      'coroscope.maxTasks': MAX_TASKS,
      'coroscope.demoPages': 50_000,
      'coroscope.snapshotRate': 10,
    },
    viewport: { width: 1600, height: 1000 },
    logServerOnFailure: true,
  });
  const { page, step } = suite;

  /** The run's runtime hosts (a debugged recorded run's line replay host beside it is not one). */
  function hosts(): number[] {
    return runtimeHostPids(suite.server().extensionsDir, { lineReplay: false });
  }
  function panel(): Promise<Frame> {
    return inspectorPanel(page(), STEP_TIMEOUT_MS);
  }
  /** Waits for the panel's phase; the panel's frame then (found again when the webview reloaded itself
   *  meanwhile, as it does once when its first load misses a resource: the frame given is then detached). */
  async function waitPhase(frame: Frame, wanted: RegExp): Promise<Frame> {
    let current = frame;
    await until(
      `the panel to say ${String(wanted)}`,
      async () => {
        if (current.isDetached()) current = await panel();
        return wanted.test(await panelPhase(current));
      },
      STEP_TIMEOUT_MS,
    );
    return current;
  }
  /** The keyboard's focus on the README's editor (the first group): out of the panel's webview, whose
   *  key events (F1) VS Code does not always take, and where the debugger then opens its sources. */
  async function focusEditor(): Promise<void> {
    await page().locator('.tabs-container .tab[data-resource-name="README.md"]').first().click();
  }
  /** The panel brought forward: a stop shows its source in the active editor group, which may be the panel's. */
  async function revealPanel(): Promise<Frame> {
    await runCommand(page(), 'Coroscope: Open Inspector');
    return panel();
  }
  /** The panel's tasks: id → name. */
  async function panelTasks(frame: Frame): Promise<Map<number, string>> {
    const pairs = await frame
      .locator('.vrows .task-row[data-id]')
      .evaluateAll((els) =>
        els.map(
          (r) => [Number(r.getAttribute('data-id')), r.querySelector('.c-name')?.textContent ?? ''] as [number, string],
        ),
      );
    return new Map(pairs);
  }
  /** The tick the panel shows ("… · tick N · …"). */
  async function panelTick(frame: Frame): Promise<number> {
    const m = /tick (\d+)/.exec(await runDetail(frame));
    return m === null ? -1 : Number(m[1]);
  }
  /** The function names of the stack the panel shows for the selected task. */
  async function panelStack(frame: Frame): Promise<string> {
    return (await stackFrameNames(frame)).join(' › ');
  }
  /** The Coroutines view's tasks ("name #id"), expanded. */
  async function coroutinesViewTasks(): Promise<Map<number, string>> {
    const p = page();
    const pane = await expandedViewPane(p, /Coroutines/i, STEP_TIMEOUT_MS);
    // Room for its rows (the list draws only those on screen): the Variables and Watch views folded.
    for (const title of [/^\s*Variables/i, /^\s*Watch/i]) {
      const other = p.locator('.part.sidebar .pane-header', { hasText: title }).first();
      if ((await other.count()) > 0 && (await other.getAttribute('aria-expanded')) === 'true') await other.click();
    }
    const labels = await pane.locator('.monaco-list-row').allInnerTexts();
    const out = new Map<number, string>();
    for (const l of labels) {
      const m = /^\s*(\S+) #(\d+)/.exec(l);
      if (m !== null) out.set(Number(m[2]), m[1]!);
    }
    return out;
  }
  /** The debug toolbar's button of `action`, enabled. */
  function debugToolbar(action: 'pause' | 'continue' | 'step-over'): Locator {
    return page().locator(`.debug-toolbar .action-item .codicon-debug-${action}:not(.disabled)`).first();
  }

  step('the coroscope launch configuration shows its run in the panel: the same tasks, one host', async () => {
    const p = page();
    assert.deepEqual(hosts(), [], 'no runtime host before the first run');
    // A file open, as when one debugs: the panel comes beside it, the debugger's sources open in its group.
    await quickOpen(p, 'README.md');
    await startDebugConfiguration(p, LAUNCH_JSON.configurations[0]!.name, STEP_TIMEOUT_MS);
    await debugViewRows(p, 'debug-call-stack', /crawl \[scheduled\]/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    const frame = await waitPhase(await panel(), /^paused$/);
    assert.match(await frame.locator('.run-title').innerText(), /Crawl of the demo site/);
    const tasks = await until('the crawl task in the panel', async () => {
      const t = await panelTasks(frame);
      return [...t.values()].includes('crawl') ? t : null;
    });
    const crawlId = [...tasks].find(([, n]) => n === 'crawl')![0];
    const view = await until('the crawl task in the Coroutines view', async () => {
      const v = await coroutinesViewTasks();
      return v.has(crawlId) ? v : null;
    });
    assert.equal(
      view.get(crawlId),
      'crawl',
      `the same id for crawl: panel ${JSON.stringify([...tasks])}, debugger ${JSON.stringify([...view])}`,
    );
    assert.equal(hosts().length, 1, 'one runtime host process for the run');
    await screenshot(p, 'shared-run-launch');
  });

  step("Step Over in Run and Debug changes the panel's tick and stacks, task for task", async () => {
    const p = page();
    const frame = await panel();
    await frame.locator('.vrows .task-row', { has: frame.locator('.c-name', { hasText: /^crawl$/ }) }).click();
    await frame.locator('.detail-title', { hasText: 'crawl' }).waitFor();
    // Back to the sources' group (the debugger opens each stop's source in the active group).
    await focusEditor();
    const tick0 = await panelTick(frame);
    const stack0 = await panelStack(frame);
    // Tick by tick until crawl has started its workers and awaits the queue.
    for (
      let i = 0;
      i < 6 &&
      !(await debugViewRows(p, 'debug-call-stack', /crawl \[suspended/)
        .first()
        .isVisible());
      i++
    ) {
      const before = await panelTick(frame);
      // The step's precondition: the debugger has taken in the stop at the tick the panel shows (its
      // loop thread, fetched again at each stop, says that tick) and offers Step Over. The panel hears
      // of a stop before VS Code has fetched its threads and stack; a Step Over asked meanwhile
      // finds the palette without it, or the palette closed by the stop's source taking the focus.
      await debugViewRows(p, 'debug-call-stack', new RegExp(`event loop \\[paused after tick ${before}\\]`))
        .first()
        .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await debugToolbar('step-over').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await runCommand(p, 'Debug: Step Over');
      await until("the panel's tick to move with the debugger's step", async () => (await panelTick(frame)) > before);
    }
    await debugViewRows(p, 'debug-call-stack', /crawl \[suspended: queue\.join\]/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    assert.ok((await panelTick(frame)) > tick0);
    await until("the panel's crawl stack to change", async () => {
      const s = await panelStack(frame);
      return s !== stack0 && /crawl/.test(s) ? s : null;
    });
    // The workers, with the same ids in both views.
    const tasks = await until('the workers in the panel', async () => {
      const t = await panelTasks(frame);
      return [...t.values()].filter((n) => /^worker-\d+$/.test(n)).length === MAX_TASKS ? t : null;
    });
    const view = await until('a worker in the Coroutines view', async () => {
      const v = await coroutinesViewTasks();
      return [...v.values()].some((n) => /^worker-\d+$/.test(n)) ? v : null;
    });
    // The view lists what fits on screen: each task it shows is the panel's, id for id.
    for (const [id, name] of view)
      assert.equal(tasks.get(id), name, `task #${id}: debugger ${name}, panel ${String(tasks.get(id))}`);
    assert.equal(hosts().length, 1, 'still one runtime host process');
    await screenshot(p, 'shared-run-stepped');
  });

  step('Debug: Stop ends the run for the panel too', async () => {
    const p = page();
    await runCommand(p, 'Debug: Stop');
    await debugViewRows(p, 'debug-call-stack', /crawl \[/)
      .first()
      .waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
    await waitPhase(await revealPanel(), /^(idle|finished)$/);
    // The finished run stays inspectable in the panel (its host holds it); nothing runs beside it.
    assert.ok(hosts().length <= 1, `runtime hosts: ${hosts().join(', ')}`);
  });

  step('Run Crawl from the palette, then Debug This Run: the Call Stack lists its tasks, one host', async () => {
    const p = page();
    await focusEditor();
    const frame = await waitPhase(await startDemoCrawl(p, STEP_TIMEOUT_MS), /^paused$/);
    await until('the crawl task in the panel', async () => [...(await panelTasks(frame)).values()].includes('crawl'));
    assert.equal(hosts().length, 1);
    const pid = hosts()[0];
    await focusEditor();
    await debugThisRun(p);
    await debugViewRows(p, 'debug-call-stack', /crawl \[scheduled\]/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(p, 'debug-call-stack', /event loop \[paused/)
      .first()
      .waitFor({ state: 'visible' });
    // Both views settle on the new run's tasks: the same crawl task, by id.
    const [shown, view] = await until('the crawl task, the same in the panel and the Coroutines view', async () => {
      const [t, v] = [await panelTasks(frame), await coroutinesViewTasks()];
      const crawl = [...t].find(([, n]) => n === 'crawl');
      return crawl !== undefined && v.get(crawl[0]) === 'crawl' ? ([t, v] as const) : null;
    });
    for (const [id, name] of view) assert.equal(shown.get(id), name, `task #${id}`);
    assert.deepEqual(hosts(), [pid], 'the debugger attached to the same runtime host process');
    await screenshot(p, 'shared-run-attached');
  });

  step('Continue, then Pause in the panel: the debugger runs, then shows stopped', async () => {
    const frame = await revealPanel();
    await debugToolbar('continue').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await frame.locator('button[data-action="continue"]').click();
    await waitPhase(frame, /^running$/);
    await debugToolbar('pause').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(page(), 'debug-call-stack', /worker-1 \[/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS })
      .catch(() => undefined);
    await frame.locator('button[data-action="pause"]').click();
    // The debugger shows the stop (its source may now cover the panel: read the panel after).
    await debugToolbar('continue').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(page(), 'debug-call-stack', /event loop \[paused/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await debugViewRows(page(), 'debug-call-stack', /worker-1 \[/)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await waitPhase(await revealPanel(), /^paused$/);
    assert.equal(hosts().length, 1);
    await screenshot(page(), 'shared-run-paused-from-panel');
  });

  step('Stop in the panel ends the debug session', async () => {
    const frame = await revealPanel();
    await frame.locator('button[data-action="stop"]').click();
    await debugViewRows(page(), 'debug-call-stack', /crawl \[/)
      .first()
      .waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
    await debugToolbar('continue').waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
    await waitPhase(frame, /^(finished|idle)$/);
  });
});
