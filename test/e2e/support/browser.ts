/**
 * Drives the VS Code workbench served by code-server in Debian's Chromium, through
 * playwright-core (no browser download: the executable is /usr/bin/chromium, from apt).
 *
 * Invariants:
 * - Chromium runs headless with the flags that work as root on these machines (no sandbox,
 *   no GPU, no background networking: the machine's closed network refuses those
 *   connections); each workbench gets its own browser context, so no state is shared.
 * - `openWorkbench` returns only when the workbench is usable: the extensions' themes have
 *   been applied (the `vscode-theme-*` class appears on .monaco-workbench once the
 *   extension points are handled; before that the workbench shows a default light theme).
 * - Helpers act as a person would: keyboard into the command palette and Quick Open, and
 *   wait for what the screen shows, never for fixed delays. Enter goes into a quick input only
 *   once it shows what was typed with the keyboard in it, and is seen taken (acceptQuickInput).
 * - Screenshots go to <project>/.test-artifacts/e2e/ (git-ignored).
 * - A workbench records the errors its page logs and the dialogs it opens (each dismissed, as
 *   playwright does with no listener), for the tests to assert on.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type Frame,
  type Locator,
  type Page,
} from 'playwright-core';

const projectRoot = resolve(__dirname, '..', '..', '..');
export const ARTIFACTS_DIR = join(projectRoot, '.test-artifacts', 'e2e');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const WORKBENCH_TIMEOUT_MS = 60_000;
const ACTION_TIMEOUT_MS = 15_000;

export function launchBrowser(options: { headless?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
    headless: options.headless ?? process.env.E2E_HEADED !== '1',
  });
}

export interface Workbench {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Errors the page logged (console.error and uncaught exceptions), for diagnostics. */
  readonly errors: string[];
  /** Messages of the dialogs (alert, confirm, prompt) the page opened; each was dismissed. */
  readonly dialogs: string[];
  close(): Promise<void>;
}

export interface WorkbenchOptions {
  readonly viewport?: { readonly width: number; readonly height: number };
  readonly timeoutMs?: number;
}

/** Opens `url` (a code-server workbench URL) in a new context and waits until it is usable. */
export async function openWorkbench(browser: Browser, url: string, options: WorkbenchOptions = {}): Promise<Workbench> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(`console.error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error: Error) => errors.push(`pageerror: ${error.message}`));
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  try {
    // The first load compiles the workbench's scripts: on a loaded machine it outlasts an action's timeout.
    await page.goto(url, { timeout: options.timeoutMs ?? WORKBENCH_TIMEOUT_MS });
    await waitForWorkbench(page, options.timeoutMs ?? WORKBENCH_TIMEOUT_MS);
  } catch (error) {
    await context.close();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- page errors ---\n${errors.join('\n')}`,
    );
  }
  return { context, page, errors, dialogs, close: () => context.close() };
}

export async function waitForWorkbench(page: Page, timeoutMs = WORKBENCH_TIMEOUT_MS): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-workbench[class*="vscode-theme-"]').waitFor({ state: 'attached', timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
}

export type ThemeKind = 'dark' | 'light' | 'high-contrast-dark' | 'high-contrast-light';
const THEME_CLASS: Record<ThemeKind, string> = {
  dark: 'vs-dark',
  light: 'vs',
  'high-contrast-dark': 'hc-black',
  'high-contrast-light': 'hc-light',
};

/** Waits until a theme of the given kind, contributed by an extension, is applied. */
export async function waitForThemeKind(page: Page, kind: ThemeKind, timeoutMs = ACTION_TIMEOUT_MS): Promise<void> {
  await page
    .locator(`.monaco-workbench.${THEME_CLASS[kind]}[class*="vscode-theme-"]`)
    .waitFor({ state: 'attached', timeout: timeoutMs });
}

// --- quick input: command palette, Quick Open, quick picks --------------------------------

function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget .quick-input-box input');
}

/** Quick-input rows whose label or description is exactly `label` (`focused`: only the row
 *  Enter would pick). The color-theme picker, for one, shows "Light Modern" as the label and
 *  the theme's settings name "Default Light Modern" as the description. */
function rowsLabelled(page: Page, label: string, focused: boolean): Locator {
  const exactly = new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`);
  return page
    .locator(`.quick-input-widget .monaco-list-row${focused ? '.focused' : ''}`)
    .filter({ has: page.locator('.label-name, .label-description').filter({ hasText: exactly }) });
}

/** What the open quick input shows, as a person reads it; null while none is shown. */
interface QuickInputShown {
  readonly title: string;
  readonly placeholder: string;
  readonly value: string;
  /** The keyboard is in its input box: a key pressed now goes to it. */
  readonly focused: boolean;
}

async function quickInputShown(page: Page): Promise<QuickInputShown | null> {
  const input = quickInput(page);
  if (!(await input.isVisible())) return null;
  return input
    .evaluate((el) => {
      const widget = el.closest('.quick-input-widget');
      return {
        title: widget?.querySelector('.quick-input-title')?.textContent ?? '',
        placeholder: el.getAttribute('placeholder') ?? '',
        value: (el as unknown as { value: string }).value,
        focused: el === el.ownerDocument.activeElement,
      };
    })
    .catch(() => null);
}

/** The same quick input step: what it asks and holds (a new step of it, or a next pick, differs). */
function sameStep(a: QuickInputShown, b: QuickInputShown): boolean {
  return a.title === b.title && a.placeholder === b.placeholder && a.value === b.value;
}

/** The Enter keydowns the quick input's box has received in this document, and which document that is. */
interface QuickInputEnters {
  /** A token of the document the count is kept in: another one after the page loaded again. */
  readonly document: string;
  readonly enters: number;
}

/**
 * Counts the Enter keydowns whose target is inside the quick input widget (a listener on the window, put
 * there the first time, in the capture phase: before the workbench handles them): tells an Enter the
 * quick input got from one that went where the focus had moved to. A command that reloads the window
 * ("Developer: Reload Window") leaves a new document, whose token differs: that Enter was taken too.
 */
async function quickInputEnters(page: Page): Promise<QuickInputEnters> {
  return page.locator('.monaco-workbench').evaluate((root, token) => {
    const doc = root.ownerDocument;
    const marks = doc.documentElement.dataset;
    if (marks.e2eQuickInputEnters === undefined) {
      marks.e2eQuickInputEnters = '0';
      marks.e2eDocument = token;
      doc.defaultView?.addEventListener(
        'keydown',
        (event: { key: string; target: { closest?: (selector: string) => unknown } | null }) => {
          if (event.key === 'Enter' && event.target?.closest?.('.quick-input-widget'))
            marks.e2eQuickInputEnters = String(Number(marks.e2eQuickInputEnters) + 1);
        },
        true,
      );
    }
    return { document: String(marks.e2eDocument), enters: Number(marks.e2eQuickInputEnters) };
  }, `${Date.now()}-${Math.random()}`);
}

/** How long an Enter the quick input got may take to close it (or show its next step) before it is pressed again. */
const ENTER_TAKEN_MS = 3_000;
/** Enter presses at most, for one acceptance. */
const ENTER_PRESSES = 3;

/**
 * Presses Enter in the open quick input as a careful person does, and returns once it was taken.
 * First it waits until the input shows `value` (when given) and `ready` holds (the palette: the wanted row
 * is the focused one), with the keyboard in it (put back there when it is elsewhere). After the key, it
 * waits for the input to close or to show its next step. Still showing the same step after ENTER_TAKEN_MS,
 * Enter is pressed again: a quick input that takes Enter closes at once (the palette, then runs the
 * command) or is disposed by the extension on its first acceptance (focus-safe-quick-pick.ts), so the
 * step still open means nothing was accepted, and a second Enter cannot run anything twice. Closed while
 * the key went elsewhere (the focus had moved: a view or a debug stop's source took it), it is pressed
 * again once the same step is back (a focus-safe pick shows itself again); else this throws, nothing
 * accepted, for the caller to ask again (runCommand). Each Enter pressed again is logged, with the reason.
 */
export async function acceptQuickInput(
  page: Page,
  what: string,
  options: { value?: string; ready?: () => Promise<boolean>; timeoutMs?: number } = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? ACTION_TIMEOUT_MS;
  const input = quickInput(page);
  let pressed: QuickInputShown | null = null;
  for (let press = 1; ; press++) {
    const step: QuickInputShown = await until(
      `the quick input (${what}) to hold ${JSON.stringify(options.value ?? '')} with the keyboard in it`,
      async () => {
        const shown = await quickInputShown(page);
        if (shown === null || (pressed !== null && !sameStep(shown, pressed))) return null;
        if (options.value !== undefined && shown.value !== options.value) return null;
        if (options.ready !== undefined && !(await options.ready())) return null;
        if (!shown.focused) {
          await input.focus().catch(() => undefined);
          return null;
        }
        return shown;
      },
      timeoutMs,
    );
    const before = await quickInputEnters(page);
    await page.keyboard.press('Enter');
    const after = await until(
      `the quick input (${what}) to take Enter`,
      async () => {
        const shown = await quickInputShown(page);
        return shown === null ? 'closed' : sameStep(shown, step) ? undefined : 'next step';
      },
      ENTER_TAKEN_MS,
    ).catch(() => 'still open' as const);
    // Read again once the page answers (a reload makes it say nothing for a while).
    const now = await until('the page to answer', () => quickInputEnters(page), timeoutMs);
    const reached = now.document !== before.document || now.enters > before.enters;
    if (after !== 'still open' && reached) return;
    const why =
      after === 'still open'
        ? `still open ${ENTER_TAKEN_MS} ms after an Enter that ${reached ? 'reached it' : 'went elsewhere (the focus had moved)'}`
        : `${after === 'closed' ? 'closed' : 'moved on'} without the Enter, which went elsewhere (the focus had moved)`;
    if (press >= ENTER_PRESSES) throw new Error(`the quick input (${what}) did not take Enter: ${why}`);
    console.log(`--- the quick input (${what}) was ${why}: Enter pressed again`);
    pressed = step;
  }
}

/** Waits for a row labelled exactly `label` in the open quick input and takes it: Enter when
 *  it is the focused row, else a click on it (the best fuzzy match is not always first:
 *  "Preferences: Color Theme" sorts after "Preferences: Browse Color Themes in Marketplace";
 *  and arrow keys race the list when it re-renders as commands become enabled). */
async function acceptRow(page: Page, label: string, typed: string, timeout?: number): Promise<void> {
  await rowsLabelled(page, label, false).first().waitFor({ state: 'visible', timeout });
  const focused = async (): Promise<boolean> => (await rowsLabelled(page, label, true).count()) > 0;
  if (await focused()) {
    await acceptQuickInput(page, label, {
      value: typed,
      ready: focused,
      ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    });
    return;
  }
  // A hover the pointer left behind can cover the row: a tab that moved under a still pointer
  // (the debugger opened a source where another tab was) shows its path over the palette, and
  // a hover stays while the pointer is on it, where a click on the row would move it. So the
  // pointer goes onto the palette's input first, away from what it hovered, and the hover goes.
  await quickInput(page).hover({ timeout });
  await page
    .locator('.context-view .hover-contents')
    .first()
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => undefined);
  await rowsLabelled(page, label, false).first().click({ timeout });
}

/** Types `filter` into the open quick input (replacing its text) and picks the row labelled
 *  exactly `label`. `placeholder` (part of the input's placeholder text) tells which quick
 *  pick to wait for, so as not to type into the command palette that opened it. */
export async function pickQuickInputItem(
  page: Page,
  label: string,
  options: { filter?: string; placeholder?: string } = {},
): Promise<void> {
  const input =
    options.placeholder === undefined
      ? quickInput(page)
      : quickInput(page).and(page.locator(`[placeholder*="${cssString(options.placeholder)}"]`));
  await input.waitFor({ state: 'visible' });
  await input.fill(options.filter ?? label);
  await acceptRow(page, label, options.filter ?? label);
}

/** Runs a command by its palette title (e.g. "View: Toggle Terminal"): F1, type, Enter, and
 *  returns once the palette took it (acceptQuickInput: it closed, or the command's own quick pick
 *  shows). It does not wait for what the command does: the caller checks that.
 *  The palette lists the commands enabled when it opened: one enabled a moment later ("Debug:
 *  Step Into" once VS Code has taken in a stop, which it does after fetching the stopped
 *  thread's stack) shows only in a palette opened again, so, as a person would, this closes
 *  and reopens it when the command is not listed within a few seconds (three tries). The
 *  same when the palette closes under the typing or before the row is taken (the workbench
 *  moved the focus: a debug stop opening its source, a session ending, a view opening). */
export async function runCommand(page: Page, title: string): Promise<void> {
  const tries = 3;
  for (let attempt = 1; ; attempt++) {
    const timeout = attempt >= tries ? undefined : 5_000;
    try {
      await closeQuickInput(page);
      await openCommandPalette(page);
      await quickInput(page).fill(`>${title}`, { timeout });
      // A click that times out clicked nothing, and an Enter the palette did not take ran nothing
      // (acceptQuickInput), so trying again cannot run the command twice.
      await acceptRow(page, title, `>${title}`, timeout);
      return;
    } catch (error) {
      if (timeout === undefined) throw error;
    }
  }
}

/** Opens the command palette as a person does: F1, and when the key was not taken (the focus
 *  sat in a webview or a widget that swallowed it), Ctrl+Shift+P, then F1 again. Each try
 *  waits a few seconds for the palette; the last one throws as waitFor does. */
async function openCommandPalette(page: Page): Promise<void> {
  const input = quickInput(page);
  const keys = ['F1', 'Control+Shift+P', 'F1'];
  for (let i = 0; i < keys.length; i++) {
    await page.keyboard.press(keys[i]!);
    try {
      await input.waitFor({ state: 'visible', timeout: i === keys.length - 1 ? undefined : 4_000 });
      return;
    } catch (error) {
      if (i === keys.length - 1) throw error;
    }
  }
}

/** Opens a workspace file through Quick Open (Ctrl+P) and waits for its editor tab. */
export async function quickOpen(page: Page, fileName: string): Promise<void> {
  await closeQuickInput(page);
  await page.keyboard.press('Control+P');
  const input = quickInput(page);
  await input.waitFor({ state: 'visible' });
  await input.fill(fileName);
  await acceptRow(page, fileName, fileName);
  await page
    .locator(`.tabs-container .tab.active[data-resource-name="${cssString(fileName)}"]`)
    .waitFor({ state: 'visible' });
}

async function closeQuickInput(page: Page): Promise<void> {
  if (await quickInput(page).isVisible()) {
    await page.keyboard.press('Escape');
    await quickInput(page).waitFor({ state: 'hidden' });
  }
}

/** Selects a color theme through "Preferences: Color Theme", by its label ("Light Modern")
 *  or its settings name ("Default Light Modern"). */
export async function setColorTheme(page: Page, label: string, kind: ThemeKind): Promise<void> {
  await runCommand(page, 'Preferences: Color Theme');
  await pickQuickInputItem(page, label, { placeholder: 'Select Color Theme' });
  await waitForThemeKind(page, kind);
}

// --- what the workbench shows ---------------------------------------------------------------

/** The text lines rendered by the active editor (only the visible ones: Monaco virtualizes). */
export function activeEditorLines(page: Page): Locator {
  return page.locator('.editor-group-container.active .monaco-editor .view-lines');
}

/** Waits for a notification toast whose message contains `text`. */
export async function waitForNotification(
  page: Page,
  text: string | RegExp,
  timeoutMs = ACTION_TIMEOUT_MS,
): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: text });
  await toast.first().waitFor({ state: 'visible', timeout: timeoutMs });
  return toast.first();
}

/** Clears the notification toasts (a run's progress, say), so that screenshots show what is under them. */
export async function clearNotifications(page: Page): Promise<void> {
  if ((await page.locator('.notifications-toasts .notification-toast').count()) > 0) {
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page
      .locator('.notifications-toasts .notification-toast')
      .first()
      .waitFor({ state: 'detached', timeout: 5_000 })
      .catch(() => undefined);
  }
}

/** Rows of a Run and Debug view (its pane body has the class `paneClass`, e.g. debug-call-stack), filtered by text. */
export function debugViewRows(page: Page, paneClass: string, text: string | RegExp): Locator {
  return page.locator(`.${paneClass} .monaco-list-row`).filter({ hasText: text });
}

/** Starts a launch configuration as a person does: the Run and Debug view, the configuration
 *  in its drop-down (once the extension host knows the debugger and has read launch.json),
 *  the green start button. */
export async function startDebugConfiguration(page: Page, name: string, timeoutMs = 30_000): Promise<void> {
  await runCommand(page, 'View: Show Run and Debug');
  await page
    .locator(`.part.sidebar .start-debug-action-item select option[value="${cssString(name)}"]`)
    .first()
    .waitFor({ state: 'attached', timeout: timeoutMs });
  await page.locator('.part.sidebar .start-debug-action-item .codicon-debug-start').first().click();
}

/** A view pane (its header's title matches `title`, e.g. the Coroutines view), expanded. */
export async function expandedViewPane(page: Page, title: RegExp, timeoutMs = 30_000): Promise<Locator> {
  const pane = page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: title }) });
  const header = pane.locator('.pane-header').first();
  await header.waitFor({ state: 'visible', timeout: timeoutMs });
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  return pane;
}

/** Saves a PNG of the page as .test-artifacts/e2e/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path });
  return path;
}

// --- frames: webviews live in nested iframes ---------------------------------------------

/** Polls page.frames() until `predicate` holds for one (a predicate that throws, e.g. on a
 *  frame detached meanwhile, counts as false). */
export async function findFrame(
  page: Page,
  predicate: (frame: Frame) => boolean | Promise<boolean>,
  timeoutMs = ACTION_TIMEOUT_MS,
): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame.isDetached()) continue;
      try {
        if (await predicate(frame)) return frame;
      } catch {
        // detached or navigating: try again on the next round
      }
    }
    if (Date.now() > deadline) {
      throw new Error(
        `no frame matched within ${timeoutMs} ms; frames: ${page
          .frames()
          .map((f) => f.url())
          .join(', ')}`,
      );
    }
    await page.waitForTimeout(100);
  }
}

/** The inner frame of a webview (VS Code nests the extension's HTML in an iframe inside the
 *  webview's own index.html iframe) whose document has an element matching `selector`. */
export function findWebviewFrame(page: Page, selector: string, timeoutMs = ACTION_TIMEOUT_MS): Promise<Frame> {
  return findFrame(
    page,
    async (frame) => isInsideWebview(frame) && (await frame.locator(selector).count()) > 0,
    timeoutMs,
  );
}

function isInsideWebview(frame: Frame): boolean {
  for (let parent = frame.parentFrame(); parent !== null; parent = parent.parentFrame()) {
    if (parent.url().includes('/webview/')) return true;
  }
  return false;
}

// --- extension tests run inside the extension host --------------------------------------

export interface ExtensionTestsResult {
  /** The extension host's exit code: 0 when the tests module's run() resolved. */
  readonly exitCode: number;
  /** What the workbench and the extension host logged (console.* of the tests included). */
  readonly log: readonly string[];
}

/** Opens a workbench URL made by developmentUrl(server, { extensionDevelopmentPath,
 *  extensionTestsPath }) and waits for the extension host to exit after running the tests
 *  module, as VS Code's own browser integration tests do: the workbench reports through the
 *  `codeAutomationLog` and `codeAutomationExit` functions it finds on `window`. */
export async function runExtensionTests(
  browser: Browser,
  url: string,
  timeoutMs = 120_000,
): Promise<ExtensionTestsResult> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const log: string[] = [];
  let reportExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolveExit) => {
    reportExit = resolveExit;
  });
  try {
    await page.exposeFunction('codeAutomationLog', (type: unknown, args: unknown) => {
      const parts = Array.isArray(args)
        ? args.map((arg: unknown) => (typeof arg === 'string' ? arg : JSON.stringify(arg)))
        : [String(args)];
      log.push(`[${String(type)}] ${parts.join(' ')}`);
    });
    await page.exposeFunction('codeAutomationExit', (code: unknown) => reportExit(typeof code === 'number' ? code : 1));
    await page.goto(url, { timeout: WORKBENCH_TIMEOUT_MS });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`extension tests did not finish within ${timeoutMs} ms\n${log.join('\n')}`)),
        timeoutMs,
      );
    });
    try {
      return { exitCode: await Promise.race([exited, timedOut]), log };
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await context.close();
  }
}

// --- small helpers ---------------------------------------------------------------------------

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function cssString(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}

/**
 * Polls `probe` every 100 ms until it gives a value (not undefined/null/false); fails after `timeoutMs` with
 * the last error seen.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last !== undefined ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The page errors that concern the extension, less the known noise of VS Code for the web:
 * vsda (absent from code-server), favicon, and a webview resource that the service worker
 * missed on first load (ERR_NAME_NOT_RESOLVED on the CDN host; the inspector panel reloads
 * itself then, and the tests check that it boots), and the workbench's own reads of its
 * user-data files cancelled by a window reload ("Unable to read file '…/User/extensions.json'
 * (Canceled…"): they name coroscope only through the test's temporary folder.
 * `alsoExpected` adds a test's own.
 */
export function unexpectedExtensionErrors(errors: readonly string[], alsoExpected?: RegExp): string[] {
  return errors.filter(
    (e) =>
      /coroscope|webview/i.test(e) &&
      !/vsda|favicon/.test(e) &&
      !/ERR_NAME_NOT_RESOLVED.*vscode-cdn\.net/.test(e) &&
      !/Unable to read file 'vscode-remote:[^']*\/user-data\/User\/[^']*' \(Canceled/.test(e) &&
      !(alsoExpected !== undefined && alsoExpected.test(e)),
  );
}

/**
 * Clicks one of a list row's hover actions (e.g. a Call Stack thread's `.codicon-debug-step-into`).
 * The buttons show only while the row is hovered, and an update can re-render the row under a
 * still mouse: it hovers again until the click is taken. A click that times out clicked
 * nothing, so the action never runs twice.
 */
export async function clickRowAction(row: Locator, action: string, timeoutMs = 15_000): Promise<void> {
  await until(
    `the row's ${action} button taken`,
    async () => {
      await row.hover();
      return row
        .locator(action)
        .first()
        .click({ timeout: 2_000 })
        .then(
          () => true,
          () => false,
        );
    },
    timeoutMs,
  );
}
