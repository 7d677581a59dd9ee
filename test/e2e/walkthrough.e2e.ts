/**
 * The "Coroutines, Step by Step" walkthrough end to end, as a learner meets it: the packaged
 * .vsix installed into a real VS Code (code-server 4.100.3) driven in Debian's Chromium
 * through playwright-core.
 *
 * From the UI only: opens the walkthrough with "Welcome: Open Walkthrough...", checks its steps
 * ("crawl, pause, look" first, then the samples in the chapter's order), runs the first step
 * (its button crawls the demo site; Pause; a worker selected in the panel: the step is checked),
 * clicks the crawler step's button and sees the sample's source
 * open beside the walkthrough and the sample run paused in the inspector panel (the setting
 * coroscope.stopOnEntry stays off: the step pauses on its own), steps the loop and sees a
 * worker's coroutine stack change in the panel, and sees the step marked done. Then the same
 * for the first step (generators), and a step whose sample puts no task on the loop
 * (callbacks: it runs to its end, its output comes forward, and the step completes).
 * Screenshots go to .test-artifacts/e2e/walkthrough-*.png.
 *
 * Run: node --import tsx --test test/e2e/walkthrough.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { Frame, Locator } from 'playwright-core';
import { CRAWL_STEP_ID, OWN_PROGRAM_STEP_ID } from '../../extension/walkthrough';
import { listSamples } from '../../runtime/samples/index';
import { clearNotifications, screenshot, until } from './support/browser';
import {
  inspectorPanel,
  panelPhase,
  selectTask,
  stackFrameNames,
  stepTick,
  stepUntilSuspended,
  taskRows,
  waitForPanelPhase,
} from './support/inspector-panel';
import {
  openWalkthrough,
  runStepButton as runStepButtonOf,
  SAMPLE_STEP_BUTTON,
  walkthroughStep as walkthroughStepOf,
} from './support/walkthrough';
import { useWorkbenchSuite } from './support/workbench-suite';

describe('the Coroscope walkthrough in VS Code (code-server)', { timeout: 300_000 }, () => {
  const { page, step, leftNoExtensionErrors } = useWorkbenchSuite({
    name: 'walkthrough',
    files: { 'notes.md': '# Coroscope walkthrough workspace\n' },
    installExtension: true,
    settings: {
      'workbench.colorTheme': 'Default Dark Modern',
      // Off on purpose: a walkthrough step pauses its sample at entry by itself.
      'coroscope.stopOnEntry': false,
      'coroscope.snapshotRate': 10,
      'workbench.editor.enablePreview': false,
    },
    viewport: { width: 1800, height: 950 },
    // Room for the walkthrough, the source and the panel side by side: no side bar.
    hideSideBar: true,
  });
  function panel(): Promise<Frame> {
    return inspectorPanel(page());
  }
  function hideToasts(): Promise<void> {
    return clearNotifications(page());
  }

  function walkthroughStep(stepId: string): Locator {
    return walkthroughStepOf(page(), stepId);
  }
  /** The selected task's coroutine stack as the panel shows it: each frame's name and line. */
  async function shownStack(frame: Frame): Promise<string> {
    const frames = await frame
      .locator('.stack-section .frame-list .frame')
      .evaluateAll((els) =>
        els.map(
          (el) => `${el.querySelector('.frame-name')?.textContent ?? '?'}:${el.getAttribute('data-line') ?? '?'}`,
        ),
      );
    return frames.join(' > ');
  }
  function runStepButton(stepId: string, button = SAMPLE_STEP_BUTTON): Promise<void> {
    return runStepButtonOf(page(), stepId, button);
  }

  step(
    'opens from "Welcome: Open Walkthrough..." with "crawl, pause, look" first, then the samples in the chapter\'s order, then your own program',
    async () => {
      await openWalkthrough(page());
      const ids = await page()
        .locator('.gettingStartedContainer button.getting-started-step[data-step-id*="coroscope.tutorial#"]')
        .evaluateAll((els) => els.map((el) => (el.getAttribute('data-step-id') ?? '').replace(/^.*#/, '')));
      // ... and last, the step for a user's own program.
      assert.deepEqual(ids, [CRAWL_STEP_ID, ...listSamples().map((s) => s.id), OWN_PROGRAM_STEP_ID]);
      // Nothing done yet.
      assert.equal(await walkthroughStep(CRAWL_STEP_ID).getAttribute('aria-checked'), 'false');
      assert.equal(await walkthroughStep('crawler').getAttribute('aria-checked'), 'false');
      await screenshot(page(), 'walkthrough-open');
    },
  );

  step(
    "the first step's button crawls the demo site beside the walkthrough; Pause, a worker's stack shown, and the step is done",
    async () => {
      await runStepButton(CRAWL_STEP_ID, 'Run the Demo Crawl');
      const frame = await panel();
      // The crawler's source beside the walkthrough, the crawl running (not held at entry) with its ten workers.
      await page()
        .locator('.editor-group-container .tabs-container .tab.active[data-resource-name="crawler.ts"]')
        .waitFor({ state: 'visible' });
      await until(
        'the demo crawl running with its workers',
        async () =>
          (await panelPhase(frame)) === 'running' &&
          (await taskRows(frame)).filter((r) => /^worker-\d+$/.test(r.name)).length >= 10,
        30_000,
      );
      assert.match(await frame.locator('.run-title').innerText(), /Crawl of the demo site/);
      await page().locator('.gettingStartedContainer').waitFor({ state: 'visible' });
      assert.equal(
        await walkthroughStep(CRAWL_STEP_ID).getAttribute('aria-checked'),
        'false',
        'not done by running the crawl alone',
      );
      await frame.locator('button[data-action="pause"]').click();
      await waitForPanelPhase(frame, 'paused');
      const worker = (await taskRows(frame)).find((r) => /^worker-\d+$/.test(r.name) && r.state === 'suspended');
      assert.ok(worker !== undefined, 'a suspended worker at the pause');
      await selectTask(frame, worker.name);
      await until(`frames of ${worker.name}`, async () => (await stackFrameNames(frame)).includes('work'));
      await until(
        'the first step to be checked',
        async () => (await walkthroughStep(CRAWL_STEP_ID).getAttribute('aria-checked')) === 'true',
      );
      assert.equal(
        await walkthroughStep('crawler').getAttribute('aria-checked'),
        'false',
        'only the first step is done',
      );
      await hideToasts();
      await screenshot(page(), 'walkthrough-crawl-pause-look-done');
    },
  );

  step(
    "the crawler step's button opens its source beside the walkthrough and runs it paused in the inspector",
    async () => {
      await runStepButton('crawler');
      const frame = await panel();
      // It replaces the crawl the first step left paused.
      await until(
        'the crawler sample',
        async () => /Sample crawler/.test(await frame.locator('.run-title').innerText()),
        30_000,
      );
      await waitForPanelPhase(frame, 'paused');
      // The sample's TypeScript source, in an editor group of its own, with the walkthrough still shown.
      const sourceGroup = page().locator('.editor-group-container', {
        has: page().locator('.tabs-container .tab.active[data-resource-name="full-crawler.ts"]'),
      });
      await sourceGroup.waitFor({ state: 'visible' });
      await sourceGroup
        .locator('.monaco-editor .view-lines', { hasText: 'crawlAndReport' })
        .first()
        .waitFor({ state: 'visible' });
      await page().locator('.gettingStartedContainer').waitFor({ state: 'visible' });
      assert.equal(
        await sourceGroup.locator('.gettingStartedContainer').count(),
        0,
        'the source does not cover the walkthrough',
      );
      assert.ok(
        (await page().locator('.editor-group-container').count()) >= 3,
        'walkthrough, source and panel side by side',
      );
      // Paused at entry: nothing has run yet, so the step is not done.
      assert.equal(await walkthroughStep('crawler').getAttribute('aria-checked'), 'false');
      await hideToasts();
      await screenshot(page(), 'walkthrough-crawler-paused');
    },
  );

  step('stepping the loop changes the stacks the panel shows', async () => {
    const frame = await panel();
    // Step until the crawl has started its workers and worker-1 waits somewhere.
    await stepUntilSuspended(frame, 'worker-1');
    await selectTask(frame, 'worker-1');
    // Each frame with its line (the lines come with the task's detail, just after the names).
    const first = await until('frames of worker-1 with their lines', async () => {
      const stack = await shownStack(frame);
      return stack !== '' && !stack.includes(':?') ? stack : false;
    });
    await hideToasts();
    await screenshot(page(), 'walkthrough-crawler-stack-before');
    // A tick at a time (at most 40) until the stack shown changes: the task's detail is fetched
    // again a little after each snapshot, so it is read on every round, not after a fixed wait.
    let ticks = 0;
    const now = await until(
      "worker-1's stack to change as the loop steps",
      async () => {
        const shown = await shownStack(frame);
        if (shown !== first && shown !== '' && !shown.includes(':?')) return shown;
        if (ticks < 40) {
          await stepTick(frame);
          ticks++;
        }
        return false;
      },
      60_000,
    );
    console.log(`worker-1's stack went from [${first}] to [${now}]`);
    assert.notEqual(now, first, `worker-1's stack did not change: ${first}`);
    assert.equal(await panelPhase(frame), 'paused');
    await hideToasts();
    await screenshot(page(), 'walkthrough-crawler-stack-after');
  });

  step('the step is marked done once its sample has been stepped', async () => {
    await until(
      'the crawler step to be checked',
      async () => (await walkthroughStep('crawler').getAttribute('aria-checked')) === 'true',
    );
    assert.equal(
      await walkthroughStep('generators').getAttribute('aria-checked'),
      'false',
      "only the stepped sample's step is done",
    );
    await hideToasts();
    await screenshot(page(), 'walkthrough-crawler-done');
  });

  step(
    'the first step (generators) opens its own sample paused, beside the walkthrough, and completes when stepped',
    async () => {
      await runStepButton('generators');
      const frame = await panel();
      await until(
        'the generators sample',
        async () => /Sample generators/.test(await frame.locator('.run-title').innerText()),
        30_000,
      );
      await waitForPanelPhase(frame, 'paused');
      await page()
        .locator('.editor-group-container .tabs-container .tab.active[data-resource-name="generators.ts"]')
        .waitFor({ state: 'visible' });
      await page().locator('.gettingStartedContainer').waitFor({ state: 'visible' });
      await stepTick(frame);
      await until(
        'the generators step to be checked',
        async () => (await walkthroughStep('generators').getAttribute('aria-checked')) === 'true',
      );
      await hideToasts();
      await screenshot(page(), 'walkthrough-generators-done');
    },
  );

  step(
    'a sample with a loop of its own (callbacks) is held at entry, and on Continue runs to its end, brings its output forward and completes',
    async () => {
      assert.equal(await walkthroughStep('callbacks').getAttribute('aria-checked'), 'false');
      await runStepButton('callbacks');
      const frame = await panel();
      await until(
        'the callbacks sample',
        async () => /Sample callbacks/.test(await frame.locator('.run-title').innerText()),
        30_000,
      );
      // Held at entry: the sample's own loop has not started (a line breakpoint set now would hit).
      await waitForPanelPhase(frame, 'paused');
      await frame.locator('button[data-action="continue"]').click();
      await waitForPanelPhase(frame, 'finished');
      await page()
        .locator('.editor-group-container .tabs-container .tab.active[data-resource-name="callbacks.ts"]')
        .waitFor({ state: 'visible' });
      // Its lines, in the Coroscope output channel, which came forward.
      await page()
        .locator('.part.panel .monaco-editor .view-lines', { hasText: 'ripped trace' })
        .waitFor({ state: 'visible', timeout: 15_000 });
      await until(
        'the callbacks step to be checked',
        async () => (await walkthroughStep('callbacks').getAttribute('aria-checked')) === 'true',
      );
      await hideToasts();
      await screenshot(page(), 'walkthrough-callbacks-done');
    },
  );

  leftNoExtensionErrors();
});
