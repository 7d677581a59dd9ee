/**
 * F11 through the exception-chain sample end to end (issue 26), in a real VS Code (code-server)
 * with the packaged extension installed, with the settings a user has: no Coroscope or debug
 * setting (their defaults: the editor's preview tabs, the floating debug toolbar, no stop on
 * entry), only the quiet workbench settings every suite starts with (no Welcome page):
 *
 * - the walkthrough's exception-chain step opens the sample held at entry; a click in the
 *   gutter on C's `yield* passThroughB()` line, "Coroscope: Debug This Run", Continue: the
 *   debugger stops on that line before it runs (C on top, no B or A yet);
 * - F11, one press at a time, follows the `yield*` chain down and the error up it:
 *   C's yield* -> B's yield* -> A's sleep -> A's throw (after the task was suspended on the
 *   sleep and resumed) -> C's catch, its first line (B crossed) -> the line after it. At each
 *   stop the editor's current line and the Call Stack's frames (the top one, and the chain
 *   under it) are checked;
 * - at C's catch the Variables view shows `e` not yet assigned, and in its Catch scope (opened
 *   with a click) the caught error with its message; a line on, `e` holds it.
 *
 * The same path over DAP is test/extension/debug/exception-chain-stepping.test.ts and the
 * sample's golden transcript (step-transcripts.ts); this suite checks what a user sees of it.
 * Every wait is on a UI state (the editor's highlight, a Call Stack or Variables row), no sleep.
 *
 * Run: node --import tsx --test test/e2e/exception-chain-stepping.e2e.ts (E2E_SKIP_PACKAGE=1 reuses coroscope.vsix)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { clearNotifications, debugViewRows, runCommand, screenshot, until } from './support/browser';
import { inspectorPanel, waitForPanelPhase } from './support/inspector-panel';
import {
  debugKey,
  debugThisRun,
  editorOf,
  editorPosition,
  threadTopFrameTexts,
  toggleBreakpointInGutter,
  waitForCurrentLine,
} from './support/line-debugging';
import { openWalkthrough, runStepButton } from './support/walkthrough';
import { useWorkbenchSuite } from './support/workbench-suite';

const ROOT = join(__dirname, '..', '..');
const FILE_NAME = 'exception-chain.ts';
const STOP_TIMEOUT_MS = 60_000;

/** The 1-based line of the sample (this repository's copy: the same text as the installed one) holding `needle`. */
function lineOf(needle: string): number {
  const i = readFileSync(join(ROOT, 'runtime', 'samples', FILE_NAME), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${FILE_NAME} has no line with ${needle}`);
  return i + 1;
}

const C_YIELD = lineOf('const b = yield* passThroughB();');
const B_YIELD = lineOf('const a = yield* raiseInA();');
const A_SLEEP = lineOf('yield* sleep(0.01);');
const A_THROW = lineOf("throw new Error('Something went wrong in A');");
const C_CATCH = lineOf('const e = error as Error;');
const C_LOG = lineOf('t.log(`C caught: ${e.message}`);');

/** A Call Stack row of the sample's coroutine `name` at `line` ("C exception-chain.ts 26:5"). */
function frameRow(name: string, line: number): RegExp {
  return new RegExp(`^\\s*(\\S+\\.)?${name}\\s*exception-chain\\.ts\\s*${line}:`);
}

describe("exception-chain: F11 from C's yield* to C's catch in VS Code (code-server)", { timeout: 300_000 }, () => {
  const { page, step, leftNoExtensionErrors } = useWorkbenchSuite({
    name: 'exception-chain-stepping',
    files: { 'notes.md': '# Coroscope exception-chain workspace\n' },
    installExtension: true,
    // No Coroscope or debug setting: their defaults, as a user has them. (QUIET_SETTINGS only:
    // with no settings file at all, the Welcome page's walkthrough takes the focus from the
    // palette and "Open Walkthrough..." opens VS Code's own walkthrough instead.)
    settings: {},
    viewport: { width: 1800, height: 1000 },
    logServerOnFailure: true,
  });

  /**
   * The Call Stack shows the stopped task's frames as `chain` (top first, each name:line): the
   * expanded thread's top frame is the first, and each of the others is a row of the view.
   */
  async function callStackShows(chain: ReadonlyArray<readonly [string, number]>): Promise<void> {
    const [top, ...under] = chain;
    assert.ok(top !== undefined);
    await until(
      `the Call Stack's top frame to be ${top.join(':')}`,
      async () => (await threadTopFrameTexts(page())).some((t) => frameRow(top[0], top[1]).test(t)),
      STOP_TIMEOUT_MS,
    );
    for (const [name, line] of under) {
      await debugViewRows(page(), 'debug-call-stack', frameRow(name, line))
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
    }
  }

  /** No Call Stack row is a frame of the sample's coroutine `name` (any line). */
  async function noFrameOf(name: string): Promise<void> {
    const row = new RegExp(`^\\s*(\\S+\\.)?${name}\\s*exception-chain\\.ts\\s*\\d+:`);
    await debugViewRows(page(), 'debug-call-stack', row).first().waitFor({ state: 'hidden', timeout: STOP_TIMEOUT_MS });
  }

  /** One F11 in the sample's editor; waits for the next stop (the position moves) and checks it is `line`. */
  async function f11To(line: number): Promise<void> {
    const p = page();
    const before = await editorPosition(p, FILE_NAME);
    await debugKey(p, FILE_NAME, 'F11');
    const now = await until(
      `a stop after F11 from ${before ?? 'nowhere'}`,
      async () => {
        const at = await editorPosition(p, FILE_NAME);
        return at !== null && at !== before ? at : false;
      },
      STOP_TIMEOUT_MS,
    );
    assert.equal(Number(now.split(':')[0]), line, `F11 from ${before ?? '?'} stopped at ${now}, not on line ${line}`);
  }

  step(
    "the walkthrough's step opens the sample held at entry; a gutter breakpoint on C's yield*, Debug This Run, Continue: it stops there before the line runs",
    async () => {
      const p = page();
      await openWalkthrough(p);
      await runStepButton(p, 'exception-chain');
      // The panel's frame is found again at each look: it is reloaded when the sample's run starts.
      await until(
        'the exception-chain sample in the panel',
        async () => /Sample exception-chain/.test(await (await inspectorPanel(p)).locator('.run-title').innerText()),
        30_000,
      );
      await waitForPanelPhase(await inspectorPanel(p), 'paused');
      await editorOf(p, FILE_NAME).waitFor({ state: 'visible' });
      await toggleBreakpointInGutter(p, FILE_NAME, C_YIELD, 'set');
      await debugThisRun(p);
      await debugViewRows(p, 'debug-call-stack', /event loop|Paused/i)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await runCommand(p, 'Debug: Continue');
      await waitForCurrentLine(p, FILE_NAME, C_YIELD, STOP_TIMEOUT_MS);
      await callStackShows([['C', C_YIELD]]);
      // Before the line runs: B and A are not called yet.
      await noFrameOf('B');
      await noFrameOf('A');
      await clearNotifications(p);
      await screenshot(p, 'exception-chain-stepping-c-yield');
    },
  );

  step("F11 goes down the yield* chain: B's yield*, then A's sleep, with A on B on C in the Call Stack", async () => {
    await f11To(B_YIELD);
    await callStackShows([
      ['B', B_YIELD],
      ['C', C_YIELD],
    ]);
    await f11To(A_SLEEP);
    await callStackShows([
      ['A', A_SLEEP],
      ['B', B_YIELD],
      ['C', C_YIELD],
    ]);
  });

  step(
    "F11 on A's sleep follows the task across its suspension to A's throw, the chain still A on B on C",
    async () => {
      await f11To(A_THROW);
      await callStackShows([
        ['A', A_THROW],
        ['B', B_YIELD],
        ['C', C_YIELD],
      ]);
    },
  );

  step(
    "F11 on A's throw lands on C's catch, its first line (B crossed); Variables shows the caught error's message",
    async () => {
      const p = page();
      await f11To(C_CATCH);
      await callStackShows([['C', C_CATCH]]);
      await noFrameOf('A');
      await noFrameOf('B');
      // `const e` is in its dead zone (the line has not run): uninitialized, not undefined. The caught
      // error is in the Catch scope, which VS Code shows collapsed: opened with a click, as a user does.
      await debugViewRows(p, 'debug-variables', /^\s*e\s*[:=]\s*<uninitialized>/)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      const catchScope = debugViewRows(p, 'debug-variables', /^\s*Catch\s*$/).first();
      await catchScope.waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      if ((await catchScope.getAttribute('aria-expanded')) !== 'true') await catchScope.click();
      await debugViewRows(p, 'debug-variables', /^\s*error\s*[:=].*Something went wrong in A/)
        .first()
        .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
      await clearNotifications(p);
      await screenshot(p, 'exception-chain-stepping-c-catch');
    },
  );

  step('F11 again: the line after, with e set to the caught error', async () => {
    const p = page();
    await f11To(C_LOG);
    await callStackShows([['C', C_LOG]]);
    await debugViewRows(p, 'debug-variables', /^\s*e\s*[:=].*Something went wrong in A/)
      .first()
      .waitFor({ state: 'visible', timeout: STOP_TIMEOUT_MS });
  });

  step('without the breakpoint, Continue runs the sample to its end', async () => {
    const p = page();
    await toggleBreakpointInGutter(p, FILE_NAME, C_YIELD, 'removed');
    await runCommand(p, 'Debug: Continue');
    await waitForPanelPhase(await inspectorPanel(p), 'finished', STOP_TIMEOUT_MS);
  });

  leftNoExtensionErrors();
});
