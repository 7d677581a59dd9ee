/**
 * Issue 27, a new user's own program from an empty folder: a fresh code-server with VS Code's
 * defaults, the packaged .vsix installed, an empty workspace; the palette's "Coroscope: New
 * Coroutine Program" opens coroutines.ts and debugs it stopped on main's first line; the
 * import of "coroscope" has IntelliSense (the hover of Queue is the runtime's constructor) and the
 * Problems are none; Stop, then F5 (the launch configuration the command wrote) stops on that
 * line again. Then the user writes a lock-order deadlock over it in the editor (two tasks taking
 * `ledger` and `auditLog` in opposite order, a sleep between) and saves; F5 stops on it: the
 * Call Stack's paused reason and the editor's exception widget say "Deadlock", the warning
 * notification names the cycle, and the widget's details name both locks by their variables,
 * with the lines that created them and where each holder acquired its lock.
 *
 * Run: node --import tsx --test test/e2e/new-program.e2e.ts   (after test/e2e/setup/install-code-server.sh)
 * Set E2E_SKIP_PACKAGE=1 to reuse an existing coroscope.vsix.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { STARTER_FIRST_LINE } from '../../extension/new-program';
import { debugViewRows, runCommand, screenshot, until, waitForNotification } from './support/browser';
import { editorOf, focusEditor, waitForCurrentLine } from './support/line-debugging';
import { inspectorPanel } from './support/inspector-panel';
import { useWorkbenchSuite } from './support/workbench-suite';

const PROGRAM = 'coroutines.ts';

/** What the user writes over the starter: two tasks that take two locks in opposite order. */
const DEADLOCK_PROGRAM = `import { coroutine, gather, getRunningLoop, Lock, sleep, type Coroutine } from 'coroscope';

const transfer = coroutine(function* transfer(ledger: Lock, auditLog: Lock): Coroutine<void> {
  yield* ledger.acquire(); // transfer takes the ledger
  try {
    yield* sleep(0.01);
    yield* auditLog.acquire(); // then the audit log
    auditLog.release();
  } finally {
    ledger.release();
  }
});

const audit = coroutine(function* audit(ledger: Lock, auditLog: Lock): Coroutine<void> {
  yield* auditLog.acquire(); // audit takes the audit log
  try {
    yield* sleep(0.01);
    yield* ledger.acquire(); // then the ledger
    ledger.release();
  } finally {
    auditLog.release();
  }
});

export const main = coroutine(function* main(): Coroutine<void> {
  const ledger = new Lock();
  const auditLog = new Lock();
  const loop = getRunningLoop();
  const first = loop.createTask(transfer(ledger, auditLog), { name: 'transfer' });
  const second = loop.createTask(audit(ledger, auditLog), { name: 'audit' });
  yield* gather(first, second);
  console.log('both done');
});
`;

/** The 1-based line of DEADLOCK_PROGRAM that contains `text`. */
function deadlockLine(text: string): number {
  const i = DEADLOCK_PROGRAM.split('\n').findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`no line has ${text}`);
  return i + 1;
}

describe('New Coroutine Program from an empty folder (code-server)', { timeout: 300_000 }, () => {
  const suite = useWorkbenchSuite({
    name: 'new-program',
    files: {},
    installExtension: true,
    noSettingsFile: true,
    viewport: { width: 1600, height: 900 },
  });
  const { page, step } = suite;

  step(
    'the palette\'s "Coroscope: New Coroutine Program" opens the program, debugged, stopped on main\'s first line',
    async () => {
      // As a person starts: once the workbench has opened its Welcome page.
      await page()
        .locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough/ })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const started = Date.now();
      await runCommand(page(), 'Coroscope: New Coroutine Program');
      await page()
        .locator(`.tabs-container .tab[data-resource-name="${PROGRAM}"]`)
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await waitForCurrentLine(page(), PROGRAM, STARTER_FIRST_LINE, 60_000);
      console.log(`New Coroutine Program to the first stop: ${Date.now() - started} ms`);
      const workspace = suite.server().workspace;
      for (const f of [PROGRAM, 'tsconfig.json', join('.vscode', 'launch.json')])
        assert.ok(existsSync(join(workspace, f)), `${f} was not written`);
      assert.match(
        readFileSync(join(workspace, '.vscode', 'launch.json'), 'utf8'),
        /"program": "\$\{workspaceFolder\}\/coroutines\.ts"/,
      );
      await screenshot(page(), 'new-program-stopped');
    },
  );

  step(
    '"coroscope" resolves: the hover of Queue is the runtime\'s constructor, and there are no Problems',
    async () => {
      await focusEditor(page(), PROGRAM);
      await page().keyboard.press('Control+G');
      const input = page().locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await input.fill(`:${STARTER_FIRST_LINE}:22`);
      await page().keyboard.press('Enter');
      await input.waitFor({ state: 'hidden' });
      await until(
        "the hover of Queue to show the runtime's constructor",
        async () => {
          await page().keyboard.press('Control+K');
          await page().keyboard.press('Control+I');
          const hover = page().locator('.monaco-hover:visible');
          const text = (await hover.count()) > 0 ? await hover.first().innerText() : '';
          // TypeScript's hover of the constructor: the runtime's signature, not `any`.
          return /new Queue<string \| null>\(maxsize\?: number\): Queue<string \| null>/.test(text) ? text : false;
        },
        60_000,
      );
      await page().keyboard.press('Escape');
      const problems = page().locator('[id="status.problems"]').first();
      const label = await problems.getAttribute('aria-label');
      assert.match(label ?? '', /No Problems/, `the Problems: ${label ?? '(none shown)'}`);
      assert.equal(await editorOf(page(), PROGRAM).locator('.squiggly-error').count(), 0, 'an error is underlined');
    },
  );

  step('Stop, then F5 runs the launch configuration it wrote: stopped on that line again', async () => {
    await page().keyboard.press('Shift+F5');
    await page().locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    await focusEditor(page(), PROGRAM);
    const started = Date.now();
    await page().keyboard.press('F5');
    await waitForCurrentLine(page(), PROGRAM, STARTER_FIRST_LINE, 60_000);
    // Issue 27's figure: F5 to the first stop on a .ts program (transpiled by the bundled sucrase).
    console.log(`F5 to the first stop on ${PROGRAM}: ${Date.now() - started} ms`);
    await screenshot(page(), 'new-program-f5');
    await page().keyboard.press('Shift+F5');
    await page().locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
  });

  step(
    'the user writes a lock-order deadlock in the editor and saves: F5 stops with "Deadlock", naming both locks',
    async () => {
      const workspace = suite.server().workspace;
      // As a person replaces a file's text: select all, the new text goes in (one input event, as
      // a paste: the editor keeps each line at the previous line's indentation, so it goes in
      // unindented), then Format Document indents it and Save writes it.
      await focusEditor(page(), PROGRAM);
      await page().keyboard.press('Control+A');
      await page().keyboard.insertText(
        DEADLOCK_PROGRAM.split('\n')
          .map((l) => l.trimStart())
          .join('\n'),
      );
      const trimmed = (text: string): string =>
        text
          .split('\n')
          .map((l) => l.trim())
          .join('\n');
      let formatted = 0;
      const saved = await until(
        'the saved file to be the deadlock program, formatted',
        async () => {
          if (Date.now() - formatted > 5_000) {
            // Again while TypeScript's formatter has not answered (a no-op once it has).
            formatted = Date.now();
            await runCommand(page(), 'Format Document');
            await focusEditor(page(), PROGRAM);
            await page().keyboard.press('Control+S');
          }
          const text = readFileSync(join(workspace, PROGRAM), 'utf8');
          return trimmed(text) === trimmed(DEADLOCK_PROGRAM) && /^\s+yield\* sleep\(0\.01\);$/m.test(text)
            ? text
            : false;
        },
        30_000,
      );
      assert.equal(saved.split('\n').length, DEADLOCK_PROGRAM.split('\n').length);
      // The breakpoint the command put on the starter's first line: gone with its text, as the user wants the run.
      await runCommand(page(), 'Remove All Breakpoints');
      await focusEditor(page(), PROGRAM);
      const started = Date.now();
      await page().keyboard.press('F5');

      // The Call Stack: the stopped thread's paused reason is the deadlock.
      const cycle =
        /Deadlock: lock-order cycle: (transfer → audit → transfer|audit → transfer → audit) over (ledger, auditLog|auditLog, ledger)/;
      await debugViewRows(page(), 'debug-call-stack', cycle).first().waitFor({ state: 'visible', timeout: 60_000 });
      console.log(`F5 to the Deadlock stop in the Call Stack: ${Date.now() - started} ms`);
      // The notification names it too.
      await waitForNotification(
        page(),
        /Coroscope: the run stopped on a deadlock: lock-order cycle: .* over (ledger, auditLog|auditLog, ledger)/,
        30_000,
      );

      // The editor's exception widget (on the top frame: the runtime's acquire, in lock.ts) and
      // the Debug Console: "Deadlock", the cycle, and for each task the lock it waits on (its
      // variable and the line that made it) and where its holder acquired it.
      const at = (line: number): string => `[^)\\s]*coroutines\\.ts:${line}(?!\\d)`;
      const ledgerMade = deadlockLine('const ledger = new Lock()');
      const auditLogMade = deadlockLine('const auditLog = new Lock()');
      const transferTook = deadlockLine('// transfer takes the ledger');
      const auditTook = deadlockLine('// audit takes the audit log');
      const transferWaits = `"transfer" (?:waits on lock |\\(waiting for )auditLog \\(Lock, ${at(auditLogMade)}\\), held by Task #\\d+ "audit" since ${at(auditTook)}`;
      const auditWaits = `"audit" (?:waits on lock |\\(waiting for )ledger \\(Lock, ${at(ledgerMade)}\\), held by Task #\\d+ "transfer" since ${at(transferTook)}`;
      const widget = page().locator('.monaco-editor .exception-widget').first();
      await widget.waitFor({ state: 'visible', timeout: 30_000 });
      const text = await until(
        'the exception widget to name both locks',
        async () => {
          const t = (await widget.innerText()).replace(/\s+/g, ' ');
          return new RegExp(transferWaits).test(t) && new RegExp(auditWaits).test(t) ? t : false;
        },
        30_000,
      );
      assert.match(text, /Deadlock/);
      assert.match(
        text,
        /lock-order cycle: (transfer → audit → transfer|audit → transfer → audit) over (ledger, auditLog|auditLog, ledger)/,
        text,
      );
      await until(
        'the Debug Console to list each task and the lock it waits on',
        async () => {
          const t = (await page().locator('.repl').first().innerText()).replace(/\s+/g, ' ');
          return (
            new RegExp(transferWaits.replace('(?:waits on lock |\\(waiting for )', 'waits on lock ')).test(t) &&
            new RegExp(auditWaits.replace('(?:waits on lock |\\(waiting for )', 'waits on lock ')).test(t)
          );
        },
        30_000,
      );
      await screenshot(page(), 'new-program-deadlock');
      // The panel's Exceptions tab lists it among the run's deadlocks, not among the tasks that failed.
      await runCommand(page(), 'Coroscope: Open Inspector');
      const panel = await inspectorPanel(page());
      await panel.locator('.tab[data-view="exceptions"]').click();
      await panel
        .locator('.deadlocks-title', { hasText: 'Deadlocks in this run (1)' })
        .waitFor({ state: 'visible', timeout: 30_000 });
      assert.match(await panel.locator('.exception-list-host .exception-error').first().innerText(), cycle);
      assert.equal(
        await panel.locator('.exception-list-host .section-title', { hasText: /^Tasks that failed/ }).textContent(),
        'Tasks that failed in this run (0)',
      );
      await screenshot(page(), 'new-program-deadlock-exceptions');
      await page().keyboard.press('Shift+F5');
      await page().locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
    },
  );

  suite.leftNoExtensionErrors();
});
