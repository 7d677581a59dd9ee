/**
 * Time travel end to end (issue 15), as a user meets it in a real VS Code (code-server
 * 4.100.3, the packaged .vsix) driven in Debian's Chromium: a recorded demo crawl (recording
 * is on by default; an instant demo site of a few dozen pages and four workers keep it short)
 * runs to its end; the inspector's timeline shows its tasks as lanes; dragging the scrubber
 * back to mid-crawl makes the task view show that moment (worker-1 suspended in fetch, the
 * URL it fetches in its locals); "Who woke this?" goes to the tick its wait was completed;
 * "Coroscope: Save Recording…" writes a .corotrace; in a fresh window (a new page of the same
 * code-server) with the demo site gone, "Coroscope: Open Recording…" shows the same timeline,
 * and opens a recording the coroscope CLI wrote (`crawl --demo --record`) likewise; and in the
 * debugger, Step Back moves back a suspension: "Coroscope: Debug This Run" on the finished
 * crawl (stopped at its end), and a session launched from the coroscope configuration; a
 * breakpoint set in fetch after the crawl ended, the toolbar's Reverse Continue stops on its
 * last hit (replayed), the Call Stack and the editor on that line; from there F10 goes to
 * fetch's next line (replayed: the editor, the Call Stack and the Variables on it) and Step
 * Back to the hit's line again.
 *
 * Every wait is for what the screen shows (locators, the panel's own state), never a sleep.
 *
 * Run: node --import tsx --test test/e2e/time-travel.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import {
  clickRowAction,
  debugViewRows,
  findWebviewFrame,
  launchBrowser,
  openWorkbench,
  runCommand,
  screenshot,
  until,
  waitForNotification,
  type Workbench,
} from './support/browser';
import {
  debugKey,
  debugThisRun,
  editorOf,
  threadTopFrameTexts,
  toggleBreakpointInGutter,
  waitForCurrentLine,
} from './support/line-debugging';
import { runtimeHostPids, startCodeServer, type CodeServer } from './support/code-server';
import { answerOpenFileDialog } from './support/file-dialog';
import { startDemoCrawl } from './support/inspector-panel';

const projectRoot = resolve(__dirname, '..', '..');
const VSIX = join(projectRoot, 'coroscope.vsix');
const PANEL = '.task-table';
const STEP_TIMEOUT_MS = 60_000;
/** fetch's line after a page's links are parsed: it runs once per page fetched. */
const PARSED_LINE =
  readFileSync(join(projectRoot, 'runtime', 'crawler', 'crawler.ts'), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('const { stat, links } = parsed;')) + 1;

const LAUNCH_JSON = {
  version: '0.2.0',
  configurations: [
    {
      type: 'coroscope',
      request: 'launch',
      name: 'Coroscope: crawl the demo site',
      crawl: 'demo',
      maxTasks: 4,
      stopOnEntry: true,
    },
  ],
};

describe('time travel in VS Code (code-server): timeline, scrubber, recordings, Step Back', {
  timeout: 480_000,
}, () => {
  let workspace = '';
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let first: Workbench | undefined;
  let second: Workbench | undefined;
  let recording = '';
  /** The timeline's summary ("N lanes · M ticks") in the window that ran the crawl. */
  let summary = '';

  before(async () => {
    if (process.env.E2E_SKIP_PACKAGE !== '1' || !existsSync(VSIX)) {
      execFileSync('npm', ['run', 'package'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    assert.ok(statSync(VSIX).size > 0);
    workspace = mkdtempSync(join(tmpdir(), 'coroscope-e2e-time-'));
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(join(workspace, '.vscode', 'launch.json'), `${JSON.stringify(LAUNCH_JSON, null, 2)}\n`);
    writeFileSync(join(workspace, 'notes.md'), '# Coroscope time-travel e2e workspace\n');
    server = await startCodeServer({
      workspace,
      vsix: [VSIX],
      settings: {
        'coroscope.maxTasks': 4,
        'coroscope.demoPages': 40,
        'coroscope.demoLatency': 'instant',
        'coroscope.snapshotRate': 10,
        'workbench.editor.enablePreview': false,
        'debug.openDebug': 'openOnSessionStart',
        'debug.toolBarLocation': 'floating',
      },
    });
    browser = await launchBrowser();
    first = await openWorkbench(browser, server.url, { viewport: { width: 1600, height: 1000 } });
    await runCommand(first.page, 'View: Toggle Primary Side Bar Visibility');
  });

  after(async () => {
    await second?.close().catch(() => undefined);
    await first?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (workspace !== '') rmSync(workspace, { recursive: true, force: true });
  });

  function page(): Page {
    assert.ok(first, 'the workbench did not open');
    return first.page;
  }

  /** A test whose failure leaves a screenshot of every window in .test-artifacts/e2e/. */
  function step(name: string, body: () => Promise<void>): void {
    it(name, async () => {
      try {
        await body();
      } catch (error) {
        if (first) await screenshot(first.page, `time-travel-failed-${name}`).catch(() => undefined);
        if (second) await screenshot(second.page, `time-travel-failed-2-${name}`).catch(() => undefined);
        if (server) console.log(`--- code-server output (tail) ---\n${server.output().slice(-3000)}`);
        throw error;
      }
    });
  }

  /** Brings the panel's tab forward (again, when the debugger opened a source over it meanwhile). */
  function showInspector(p: Page): Promise<Frame> {
    const inspectorTab = p.locator('.tabs-container .tab', { hasText: 'Coroscope Inspector' }).first();
    return until(
      'the inspector in front',
      async () => {
        await inspectorTab.click();
        return findWebviewFrame(p, PANEL, 3_000).catch(() => undefined);
      },
      STEP_TIMEOUT_MS,
    );
  }

  function scrubberLabel(frame: Frame): Locator {
    return frame.locator('.scrubber-label');
  }

  /** The tick the scrubber shows (its slider value). */
  async function shownTick(frame: Frame): Promise<number> {
    return Number(await frame.locator('.scrubber-track').getAttribute('aria-valuenow'));
  }

  /**
   * The panel's scrubber once its label matches `says` (and `also` holds of its tick): the tick it shows.
   * The panel is found again on each try: a stop of the debugger opens its source over the panel's tab,
   * which detaches the frame a one-shot wait held.
   */
  function panelTick(p: Page, says: RegExp, also: (tick: number) => boolean = () => true): Promise<number> {
    return until(
      `the panel's scrubber to say ${says}`,
      async () => {
        const frame = await showInspector(p);
        const label = (await scrubberLabel(frame).innerText({ timeout: 2_000 })).replace(/\s+/g, ' ');
        if (!says.test(label)) return undefined;
        const tick = await shownTick(frame);
        return also(tick) ? tick : undefined;
      },
      STEP_TIMEOUT_MS,
    );
  }

  /** What worker-1's lane says it does at the shown tick ("suspended, awaiting socket.read …"). */
  async function worker1Doing(frame: Frame): Promise<string> {
    const label = frame.locator('.tl-label', { hasText: /^#\d+ worker-1$/ });
    return (await label.getAttribute('data-what')) ?? '';
  }

  async function openTab(frame: Frame, view: string): Promise<void> {
    await frame.locator(`.tab[data-view="${view}"]`).click();
    await frame.locator(`.tab.active[data-view="${view}"]`).waitFor();
  }

  /** VS Code's own file dialog (the web's: a quick input with a path): answered with `path`, or
   *  with the path it proposes (null: a `.corotrace` to save). */
  async function answerFileDialog(p: Page, path: string | null): Promise<void> {
    const input = p.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await until('the dialog to show its folder', async () => (await input.inputValue()) !== '', STEP_TIMEOUT_MS);
    if (path === null) {
      await until(
        'the dialog to propose a .corotrace',
        async () => (await input.inputValue()).endsWith('.corotrace'),
        STEP_TIMEOUT_MS,
      );
      await p.keyboard.press('Enter');
    } else {
      await answerOpenFileDialog(p, path, STEP_TIMEOUT_MS);
    }
    await input.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
  }

  step('a recorded demo crawl runs to its end and the timeline shows its tasks as lanes', async () => {
    const frame = await startDemoCrawl(page(), STEP_TIMEOUT_MS);
    await frame.locator('.phase-badge[data-phase="finished"]').waitFor({ timeout: STEP_TIMEOUT_MS });
    await openTab(frame, 'timeline');
    await frame.locator('.tl-label', { hasText: /^#\d+ worker-1$/ }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await scrubberLabel(frame)
      .filter({ hasText: /the present/ })
      .waitFor();
    summary = await frame.locator('.tl-toolbar .tl-count').innerText();
    assert.match(summary, /^\d+ lanes · [\d,]+ ticks$/);
    await screenshot(page(), 'time-travel-timeline');
  });

  step('dragging the scrubber back to mid-crawl shows worker-1 in fetch at that tick, with its URL', async () => {
    const frame = await findWebviewFrame(page(), PANEL);
    const track = frame.locator('.scrubber-track');
    const box = await track.boundingBox();
    assert.ok(box, 'the scrubber is on screen');
    const y = box.y + box.height / 2;
    // From the present (the right end) back to 40% of the run, as a hand drags.
    await page().mouse.move(box.x + box.width - 2, y);
    await page().mouse.down();
    for (const share of [0.8, 0.6, 0.4]) await page().mouse.move(box.x + box.width * share, y, { steps: 4 });
    await page().mouse.up();
    await scrubberLabel(frame)
      .filter({ hasText: /Viewing tick \d+ of \d+ \(past\)/ })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    // The moment where worker-1 waits for its page (its fetch), before the page came: the
    // nearest such tick, by the scrubber's keys.
    await frame.locator('.tl-label', { hasText: /^#\d+ worker-1$/ }).click();
    const wokenLater = async (): Promise<boolean> => {
      const jump = frame.locator('.tl-lane-detail [data-action="jump-woken"]');
      return (
        /awaiting (socket|http)/.test(await worker1Doing(frame)) &&
        (await jump.count()) > 0 &&
        Number(await jump.getAttribute('data-tick')) > (await shownTick(frame))
      );
    };
    const track2 = frame.locator('.scrubber-track');
    for (let i = 0; i < 300 && !(await wokenLater()); i++) {
      const before = await shownTick(frame);
      await track2.press('ArrowRight');
      await until('the scrubber to move', async () => (await shownTick(frame)) !== before);
    }
    assert.ok(await wokenLater(), `worker-1 at the shown tick: ${await worker1Doing(frame)}`);
    // In detail, as the task table says it: the socket, or the pool's host.
    assert.match(
      await worker1Doing(frame),
      /awaiting (socket\.\w+ <Socket fd=\d+ .*raddr=127\.0\.0\.1:\d+>|http\.pool \S)/,
    );
    const tick = await shownTick(frame);
    await scrubberLabel(frame)
      .filter({ hasText: `Viewing tick ${tick} of` })
      .waitFor();
    // Every view shows that tick: worker-1's stack in the tasks view.
    await frame.locator('[data-action="tl-show-stack"]').click();
    await frame.locator('.detail-title', { hasText: 'worker-1' }).waitFor();
    await frame.locator('.run-detail', { hasText: `viewing tick ${tick} of` }).waitFor();
    // The stack by function names comes from the recording at once; the frames with positions and
    // locals (options to click) once the replay to that tick has landed: waited for, as a state.
    const fetchFrame = frame.locator('.stack-section .frame-list .frame[role="option"]', {
      has: frame.locator('.frame-name', { hasText: /^fetch$/ }),
    });
    await fetchFrame.waitFor({ timeout: STEP_TIMEOUT_MS });
    await fetchFrame.click();
    const url = frame
      .locator('.locals-section .var-row', { has: frame.locator('.var-name', { hasText: /^url$/ }) })
      .locator('.var-value');
    await url.waitFor({ timeout: STEP_TIMEOUT_MS });
    assert.match(await url.innerText(), /http:\/\/127\.0\.0\.1:\d+\//);
    await screenshot(page(), 'time-travel-past-stack');
  });

  step('"Who woke this?" goes to the tick the future worker-1 awaits was completed', async () => {
    const frame = await findWebviewFrame(page(), PANEL);
    const jump = frame.locator('.task-detail [data-action="jump-woken"]');
    await jump.waitFor({ timeout: STEP_TIMEOUT_MS });
    const woken = Number(await jump.getAttribute('data-tick'));
    const now = await shownTick(frame);
    assert.ok(woken > now, `woken at ${woken}, after the shown tick ${now}`);
    await jump.click();
    await scrubberLabel(frame)
      .filter({ hasText: `Viewing tick ${woken} of` })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await frame.locator('.run-detail', { hasText: `viewing tick ${woken} of` }).waitFor();
    // Back to the present: the finished run again.
    await frame.locator('[data-action="back-to-present"]').click();
    await scrubberLabel(frame)
      .filter({ hasText: /the present/ })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
  });

  step(
    '"Coroscope: Debug This Run" on the finished crawl stops at its end, and Step Back moves worker-1 back a suspension at a time',
    async () => {
      const p = page();
      // The panel's tab forward: the palette's Debug This Run debugs the run it shows.
      const end = await panelTick(p, /the present/);
      const rows = (text: RegExp): Locator => p.locator('.debug-call-stack .monaco-list-row').filter({ hasText: text });
      // Stopped at the end: the loop has finished, every worker is listed as it ended.
      await debugThisRun(p);
      await rows(/event loop \[finished\]/)
        .first()
        .waitFor({ timeout: STEP_TIMEOUT_MS });
      const worker1Row = rows(/worker-1 \[/).first();
      await worker1Row.waitFor({ timeout: STEP_TIMEOUT_MS });
      const label = async (): Promise<string> =>
        /worker-1 \[[^\]]*\]/.exec((await worker1Row.innerText()).replace(/\s+/g, ' '))?.[0] ?? '';
      assert.match(await label(), /worker-1 \[(cancelled|done)/);
      // worker-1's thread focused by a click on its frame (its row expanded by its twistie; a
      // click the call stack's refresh swallowed is made again), then the toolbar's Step Back,
      // which steps the focused thread. Should the session's own focus on the loop's thread
      // (stopped at the end) come after the click, the loop steps back a tick instead (worker-1,
      // ended by then, is no thread there): Continue goes back to the end, and worker-1 is
      // focused again.
      const worker1Frame = rows(/(done|cancelled|failed): /).first();
      const selectWorker1 = (): Promise<boolean> =>
        until(
          "worker-1's frame selected",
          async () => {
            if (!(await worker1Frame.isVisible())) {
              if ((await worker1Row.getAttribute('aria-expanded')) !== 'true')
                await worker1Row.locator('.monaco-tl-twistie').click();
              await worker1Frame.waitFor({ timeout: 3_000 }).catch(() => undefined);
              return false;
            }
            if ((await worker1Frame.getAttribute('aria-selected')) !== 'true') await worker1Frame.click();
            return (await worker1Frame.getAttribute('aria-selected')) === 'true';
          },
          STEP_TIMEOUT_MS,
        );
      const stepBack = p.locator('.debug-toolbar .action-item .codicon-debug-step-back').first();
      for (let attempt = 0; ; attempt++) {
        await selectWorker1();
        await stepBack.waitFor({ timeout: STEP_TIMEOUT_MS });
        await stepBack.click();
        const moved = await until(
          'a step back',
          async () =>
            (await worker1Row.count()) === 0
              ? 'loop'
              : /worker-1 \[suspended/.test(await label())
                ? 'worker-1'
                : undefined,
          STEP_TIMEOUT_MS,
        );
        if (moved === 'worker-1') break;
        assert.ok(attempt < 3, "the focus stayed on the loop's thread");
        await runCommand(p, 'Debug: Continue');
        await rows(/event loop \[finished\]/)
          .first()
          .waitFor({ timeout: STEP_TIMEOUT_MS });
        await worker1Row.waitFor({ timeout: STEP_TIMEOUT_MS });
      }
      const last = await panelTick(p, /Viewing tick \d+ of \d+ \(past\)/);
      assert.ok(last < end, `worker-1's last suspension (tick ${last}) is before the end (${end})`);
      // Once more (the stop is worker-1's: its thread has the focus): the suspension before it, an earlier
      // tick in every view.
      await stepBack.click();
      await panelTick(p, /Viewing tick \d+ of \d+ \(past\)/, (tick) => tick < last);
      assert.match(await label(), /worker-1 \[suspended/);
      await screenshot(p, 'time-travel-debug-finished-run');
      // Detached (an attach's Stop leaves the run), the panel back at the present.
      await runCommand(p, 'Debug: Disconnect');
      await p.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
      await (await showInspector(p)).locator('[data-action="back-to-present"]').click();
      await panelTick(p, /the present/);
    },
  );

  step(
    "a breakpoint set in fetch after the crawl ended: the toolbar's Reverse Continue stops on its last hit, the Call Stack on that line; F10 to the next line, Step Back to the hit's",
    async () => {
      const p = page();
      assert.ok(server);
      // The installed extension's crawler.ts: the file the bundle's source map points at.
      const installed = readdirSync(server.extensionsDir).find(
        (d) => /coroscope/i.test(d) && existsSync(join(server!.extensionsDir, d, 'runtime', 'crawler', 'crawler.ts')),
      );
      assert.ok(installed !== undefined, `the installed extension in ${server.extensionsDir}`);
      await runCommand(p, 'File: Open File...');
      await answerFileDialog(p, join(server.extensionsDir, installed, 'runtime', 'crawler', 'crawler.ts'));
      await editorOf(p, 'crawler.ts').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await debugThisRun(p);
      const rows = (text: RegExp): Locator => p.locator('.debug-call-stack .monaco-list-row').filter({ hasText: text });
      /**
       * The stopped thread's top frame in the Call Stack is fetch at `line` (no other thread's is: at a past
       * tick the others are suspended at a yield).
       */
      const fetchOnTop = async (line: number): Promise<boolean> =>
        (await threadTopFrameTexts(p)).some((t) => new RegExp(`fetch\\s*crawler\\.ts\\s*${line}:`).test(t));
      await rows(/event loop \[finished\]/)
        .first()
        .waitFor({ timeout: STEP_TIMEOUT_MS });
      await toggleBreakpointInGutter(p, 'crawler.ts', PARSED_LINE, 'set');
      // The toolbar offers Reverse Continue once the session has stopped at the end (its threads, named
      // above, come before that stop).
      const reverseContinue = p
        .locator('.debug-toolbar .action-item .codicon-debug-reverse-continue:not(.disabled)')
        .first();
      await reverseContinue.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await reverseContinue.click();
      await waitForCurrentLine(p, 'crawler.ts', PARSED_LINE, STEP_TIMEOUT_MS);
      await until("the Call Stack on fetch's line", () => fetchOnTop(PARSED_LINE), STEP_TIMEOUT_MS);
      // The Variables of that moment (replayed): the page parsed, its destructuring not run yet (`stat` in its
      // dead zone: uninitialized, not undefined).
      await debugViewRows(p, 'debug-variables', /^\s*parsed\s*[:=]\s*Object/)
        .first()
        .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await debugViewRows(p, 'debug-variables', /^\s*stat\s*[:=]\s*<uninitialized>/)
        .first()
        .waitFor({ state: 'visible' });
      // Every view follows to the hit's moment: within its tick, on its line.
      const frame = await showInspector(p);
      await scrubberLabel(frame)
        .filter({ hasText: /Viewing in tick \d+ of \d+ \(past, on a line\)/ })
        .waitFor({ timeout: STEP_TIMEOUT_MS });
      await screenshot(p, 'time-travel-reverse-continue-hit');
      // From the hit, F10 goes by line: fetch's next line, replayed (the destructuring has run).
      await debugKey(p, 'crawler.ts', 'F10');
      // The pointer off the editor's text (the key's focus click left it there): no hover of the source
      // covers what comes next.
      await p.mouse.move(0, 0);
      await waitForCurrentLine(p, 'crawler.ts', PARSED_LINE + 1, STEP_TIMEOUT_MS);
      await until("the Call Stack on fetch's next line", () => fetchOnTop(PARSED_LINE + 1), STEP_TIMEOUT_MS);
      await debugViewRows(p, 'debug-variables', /^\s*stat\s*[:=]\s*Object/)
        .first()
        .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await screenshot(p, 'time-travel-reverse-continue-hit-next-line');
      // Step Back: the hit's line again, before the destructuring.
      await p.locator('.debug-toolbar .action-item .codicon-debug-step-back').first().click();
      await waitForCurrentLine(p, 'crawler.ts', PARSED_LINE, STEP_TIMEOUT_MS);
      await until("the Call Stack on the hit's line again", () => fetchOnTop(PARSED_LINE), STEP_TIMEOUT_MS);
      await debugViewRows(p, 'debug-variables', /^\s*stat\s*[:=]\s*<uninitialized>/)
        .first()
        .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await toggleBreakpointInGutter(p, 'crawler.ts', PARSED_LINE, 'removed');
      await runCommand(p, 'Debug: Disconnect');
      await p.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
      const panel = await showInspector(p);
      await panel.locator('[data-action="back-to-present"]').click();
      await scrubberLabel(panel)
        .filter({ hasText: /the present/ })
        .waitFor({ timeout: STEP_TIMEOUT_MS });
    },
  );

  step('"Coroscope: Save Recording…" writes the run to a .corotrace file', async () => {
    // The focus out of the panel's frame (its last click), onto its tab, as a hand would.
    await page().locator('.tabs-container .tab', { hasText: 'Coroscope Inspector' }).first().click();
    await runCommand(page(), 'Coroscope: Save Recording…');
    // The name it proposes (what ran, when) in the workspace folder.
    await answerFileDialog(page(), null);
    const toast = await waitForNotification(
      page(),
      /Coroscope: (saved the recording|cannot save|Save Recording failed)/,
      STEP_TIMEOUT_MS,
    );
    const said = await toast.innerText();
    assert.match(said, /saved the recording/);
    recording = / to (\/\S+?\.corotrace)/.exec(said)?.[1] ?? '';
    assert.ok(recording.startsWith(`${workspace}/demo-crawl-`), `saved to ${recording}`);
    await until(
      `the recording on disk (the notification said: ${said})`,
      () => existsSync(recording) && statSync(recording).size > 0,
    );
  });

  step('a fresh window, the demo site gone: "Coroscope: Open Recording…" shows the same timeline', async () => {
    // The demo site lives in the first window's runtime host: stop it (and its host).
    await runCommand(page(), 'Coroscope: Stop');
    assert.ok(server);
    const dir = server.extensionsDir;
    await until('no runtime host left', () => runtimeHostPids(dir).length === 0, STEP_TIMEOUT_MS);
    assert.ok(browser);
    second = await openWorkbench(browser, server.url, { viewport: { width: 1600, height: 1000 } });
    const p = second.page;
    await runCommand(p, 'Coroscope: Open Recording…');
    await answerFileDialog(p, recording);
    const frame = await findWebviewFrame(p, PANEL, STEP_TIMEOUT_MS);
    await frame
      .locator('.run-title', { hasText: /^Recording demo-crawl-[\d-]+\.corotrace/ })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await frame.locator('.tab.active[data-view="timeline"]').waitFor();
    await frame.locator('.tl-toolbar .tl-count', { hasText: summary }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await frame.locator('.tl-label', { hasText: /^#\d+ worker-1$/ }).waitFor();
    await screenshot(p, 'time-travel-opened-recording');
    // A recording the CLI wrote (its demo site gone with its process) opens the same way.
    const cliRecording = join(workspace, 'cli-crawl.corotrace');
    execFileSync(
      process.execPath,
      [
        join(projectRoot, 'bin', 'coroscope.js'),
        'crawl',
        '--demo',
        '--pages',
        '20',
        '--instant',
        '--max-tasks',
        '3',
        '--quiet',
        '--record',
        cliRecording,
      ],
      { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await runCommand(p, 'Coroscope: Open Recording…');
    await answerFileDialog(p, cliRecording);
    const cliFrame = await findWebviewFrame(p, PANEL, STEP_TIMEOUT_MS);
    await cliFrame
      .locator('.run-title', { hasText: /^Recording cli-crawl\.corotrace/ })
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await cliFrame.locator('.tl-label', { hasText: /^#\d+ worker-3$/ }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await screenshot(p, 'time-travel-opened-cli-recording');
    await second.close();
    second = undefined;
  });

  step("the debugger's Step Back moves back a suspension", async () => {
    const p = page();
    await runCommand(p, 'View: Show Run and Debug');
    await p
      .locator(`.part.sidebar .start-debug-action-item select option[value="${LAUNCH_JSON.configurations[0]!.name}"]`)
      .first()
      .waitFor({ state: 'attached', timeout: STEP_TIMEOUT_MS });
    await p.locator('.part.sidebar .start-debug-action-item .codicon-debug-start').first().click();
    const rows = (text: RegExp): Locator => p.locator('.debug-call-stack .monaco-list-row').filter({ hasText: text });
    const loopRow = rows(/event loop \[/).first();
    const worker1Row = rows(/worker-1 \[/).first();
    /** A thread row's name and state ("worker-1 [suspended: socket.read]"), without its badge. */
    const threadLabel = async (row: Locator): Promise<string> =>
      /worker-1 \[[^\]]*\]/.exec((await row.innerText()).replace(/\s+/g, ' '))?.[0] ?? '';
    await rows(/crawl \[scheduled\]/)
      .first()
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    // The crawl task's first step starts the workers (once the session has stopped at entry: its threads,
    // named above, come before that stop, and the palette offers Step Into only when stopped).
    await p
      .locator('.debug-toolbar .action-item .codicon-debug-step-into:not(.disabled)')
      .first()
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    await runCommand(p, 'Debug: Step Into');
    await worker1Row.waitFor({ timeout: STEP_TIMEOUT_MS });
    // worker-1's first three suspensions, one Step Into each on its thread (the row's own
    // button), the loop's row saying the tick.
    const labels: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await loopRow.innerText();
      await clickRowAction(worker1Row, '.codicon-debug-step-into', STEP_TIMEOUT_MS);
      await until('the loop to move', async () => (await loopRow.innerText()) !== before, STEP_TIMEOUT_MS);
      await until('worker-1 suspended', async () => /suspended/.test(await worker1Row.innerText()), STEP_TIMEOUT_MS);
      labels.push(await threadLabel(worker1Row));
    }
    // The panel (a tab the debugger's sources may cover: its tab brings it back) says the present.
    const present = await panelTick(p, /the present/);
    const stepBack = p.locator('.debug-toolbar .action-item .codicon-debug-step-back').first();
    await stepBack.waitFor({ timeout: STEP_TIMEOUT_MS });
    await stepBack.click();
    // The debugger shows worker-1 at its previous (second) suspension...
    await until(
      `worker-1 back at its second suspension (${labels[1]})`,
      async () => (await threadLabel(worker1Row)) === labels[1],
      STEP_TIMEOUT_MS,
    );
    // ...and so does every view: the panel shows that past tick.
    const shown = await panelTick(p, /Viewing tick \d+ of \d+ \(past\)/);
    assert.ok(shown < present, `shown ${shown}, the present ${present}`);
    await screenshot(p, 'time-travel-step-back');
    await runCommand(p, 'Debug: Stop');
  });
});
