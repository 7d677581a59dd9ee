/**
 * One end-to-end suite's VS Code: the `before`/`after` hooks that make a workspace, start
 * code-server (with the packaged extension installed when asked), launch Chromium and open
 * the workbench, and stop all of it again; and `step`, a test whose failure leaves a
 * screenshot (and, when asked, the tail of code-server's output).
 *
 * Every e2e file that drives code-server starts here, so that a change to how a suite starts
 * (a flag, a cleanup, what a failure leaves behind) is made once.
 *
 * Invariants:
 * - `useWorkbenchSuite` is called inside a `describe`: it registers that describe's hooks.
 * - `after` closes what `before` opened, each piece on its own (one failure does not leave
 *   a process behind), in reverse order: workbench, browser, server, workspace.
 * - The packaged extension is built once per suite, unless E2E_SKIP_PACKAGE=1 and
 *   coroscope.vsix exists, or COROSCOPE_VSIX names a file to install as it is; either way it
 *   must fit in 3 MB (it carries the TypeScript transpiler and the types of issue 27).
 * - A failed step's screenshot is `.test-artifacts/e2e/<name>-failed-<step title>.png`, its
 *   logs (code-server's, VS Code's) are kept beside it in `…-logs/`; both paths are printed, and
 *   its error carries the notifications shown and the extension's log tail (CI shows the error).
 * - The steps tell one story: after a failed step the later ones are skipped, naming it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { after, before, it, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  ARTIFACTS_DIR,
  launchBrowser,
  openWorkbench,
  runCommand,
  screenshot,
  unexpectedExtensionErrors,
  type Workbench,
} from './browser';
import { startCodeServer, type CodeServer, type CodeServerOptions } from './code-server';

const projectRoot = resolve(__dirname, '..', '..', '..');
const VSIX_LIMIT_BYTES = 3_000_000;

/** The packaged extension to install: COROSCOPE_VSIX as it is, else <project>/coroscope.vsix,
 *  built by `npm run package` unless E2E_SKIP_PACKAGE=1 and it exists already. */
export function packagedVsix(): string {
  const given = process.env.COROSCOPE_VSIX;
  const vsix = given ?? join(projectRoot, 'coroscope.vsix');
  if (given === undefined && (process.env.E2E_SKIP_PACKAGE !== '1' || !existsSync(vsix))) {
    execFileSync('npm', ['run', 'package'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  assert.ok(existsSync(vsix), `no packaged extension at ${vsix}`);
  assert.ok(statSync(vsix).size <= VSIX_LIMIT_BYTES, `the .vsix is ${statSync(vsix).size} bytes, over 3 MB`);
  return vsix;
}

/**
 * Copies what the server and VS Code logged (its temporary folder goes at stop) to
 * .test-artifacts/e2e/<name>-logs/, prints where, and prints the tail of the extension's own
 * output channel: what a failed CI run leaves to read.
 */
function keepLogs(server: CodeServer, name: string): string {
  let tails = '';
  try {
    const dir = join(ARTIFACTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}-logs`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'code-server.log'), server.output());
    const vscodeLogs = join(server.userDataDir, 'logs');
    if (existsSync(vscodeLogs)) cpSync(vscodeLogs, join(dir, 'vscode'), { recursive: true });
    console.log(`--- logs kept in ${dir}`);
    const own = existsSync(join(dir, 'vscode'))
      ? readdirSync(join(dir, 'vscode'), { recursive: true, encoding: 'utf8' }).filter(
          (f) => /coroscope/i.test(basename(f)) && f.endsWith('.log'),
        )
      : [];
    for (const f of own) {
      const tail = `--- ${f} (tail) ---\n${readFileSync(join(dir, 'vscode', f), 'utf8').slice(-3000)}`;
      console.log(tail);
      tails += `${tail}\n`;
    }
  } catch (e) {
    console.log(`--- the logs could not be kept: ${String(e)}`);
  }
  return tails;
}

/**
 * Each webview's innermost documents (a blank panel: was its HTML there, its script not run?), for a failed step's
 * error: the frame's address, its readiness and the start of its body.
 */
async function webviewDocuments(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const frame of page.frames()) {
    if (frame.isDetached() || frame.childFrames().length > 0 || !/\/webview\//.test(frame.parentFrame()?.url() ?? ''))
      continue;
    const doc = await frame
      .locator('html')
      .evaluate(
        (el) => {
          const d = el.ownerDocument;
          const scripts = [...d.querySelectorAll('script')].map((x) => x.getAttribute('src') ?? 'inline');
          const body = d.body;
          return `${d.readyState}; scripts ${JSON.stringify(scripts)}; body ${body?.childElementCount ?? 0} element(s): ${(body?.innerHTML ?? '').slice(0, 300)}`;
        },
        undefined,
        { timeout: 2_000 },
      )
      .catch((e: unknown) => `(not read: ${String(e).slice(0, 200)})`);
    // VS Code keeps a webview's shown page in its `active-frame` and loads a new one in a `pending-frame`.
    const element = await frame.frameElement().catch(() => null);
    const role = (await element?.getAttribute('id').catch(() => null)) ?? '?';
    out.push(`${frame.url().slice(0, 160)} [${role}] ${doc}`);
  }
  return out;
}

/** The texts of the notifications the page shows (a refusal, an error), for a failed step's error. */
async function notificationTexts(page: Page): Promise<string[]> {
  const toasts = page.locator(
    '.notifications-toasts .notification-toast, .notifications-center .notification-list-item',
  );
  return (await toasts.allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

export interface WorkbenchSuiteOptions {
  /** Names the temporary workspace and the failure screenshots (`<name>-failed-<step>`). */
  readonly name: string;
  /** Files of the workspace: path relative to it → text (folders are made as needed). */
  readonly files: Readonly<Record<string, string>>;
  /** Install the packaged extension (packagedVsix()). */
  readonly installExtension?: boolean;
  /** User settings on top of QUIET_SETTINGS (see startCodeServer). */
  readonly settings?: CodeServerOptions['settings'];
  /** No settings file at all: VS Code's own defaults, as on a first start. */
  readonly noSettingsFile?: boolean;
  /** Open a workbench page (default true); without it the suite has the server and the browser only. */
  readonly openWorkbench?: boolean;
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Hide the primary side bar once the workbench is open (room for the panel). */
  readonly hideSideBar?: boolean;
  /** A failed step also prints the tail of code-server's output. */
  readonly logServerOnFailure?: boolean;
}

export interface WorkbenchSuite {
  /** The workbench's page; fails the test when the workbench did not open. */
  page(): Page;
  workbench(): Workbench;
  server(): CodeServer;
  browser(): Browser;
  /** A test whose failure leaves a screenshot in .test-artifacts/e2e/. */
  step(name: string, body: (t: TestContext) => Promise<void>): void;
  /** The suite's last test: the page logged no error from the extension (unexpectedExtensionErrors). */
  leftNoExtensionErrors(alsoExpected?: RegExp): void;
}

export function useWorkbenchSuite(options: WorkbenchSuiteOptions): WorkbenchSuite {
  let workspace = '';
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench | undefined;
  /** The first step that failed (the later ones are skipped). */
  let failedStep: string | null = null;

  before(async () => {
    const vsix = options.installExtension === true ? [packagedVsix()] : [];
    workspace = mkdtempSync(join(tmpdir(), `coroscope-e2e-${options.name}-`));
    for (const [path, text] of Object.entries(options.files)) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), text);
    }
    server = await startCodeServer({
      workspace,
      vsix,
      ...(options.noSettingsFile === true ? { noSettingsFile: true } : { settings: options.settings ?? {} }),
    });
    browser = await launchBrowser();
    if (options.openWorkbench === false) return;
    workbench = await openWorkbench(
      browser,
      server.url,
      options.viewport === undefined ? {} : { viewport: options.viewport },
    );
    if (options.hideSideBar === true) await runCommand(workbench.page, 'View: Toggle Primary Side Bar Visibility');
  });

  after(async () => {
    await workbench?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (workspace !== '') rmSync(workspace, { recursive: true, force: true });
  });

  const suite: WorkbenchSuite = {
    workbench() {
      assert.ok(workbench, 'the workbench did not open');
      return workbench;
    },
    page() {
      return suite.workbench().page;
    },
    server() {
      assert.ok(server, 'code-server did not start');
      return server;
    },
    browser() {
      assert.ok(browser, 'the browser did not start');
      return browser;
    },
    step(name, body) {
      it(name, async (t) => {
        if (failedStep !== null) {
          t.skip(`an earlier step failed: "${failedStep}"`);
          return;
        }
        try {
          await body(t);
        } catch (error) {
          failedStep = name;
          let evidence = '';
          if (workbench) {
            const shot = await screenshot(workbench.page, `${options.name}-failed-${name}`).catch(
              (e: unknown) => `none (${String(e)})`,
            );
            console.log(`--- step failed: "${name}"; screenshot: ${shot}`);
            const shown = await notificationTexts(workbench.page);
            if (shown.length > 0) evidence += `\n--- notifications shown:\n${shown.join('\n')}`;
            if (workbench.errors.length > 0)
              evidence += `\n--- page errors (last 15):\n${workbench.errors.slice(-15).join('\n')}`;
            const webviews = await webviewDocuments(workbench.page);
            if (webviews.length > 0) evidence += `\n--- webview documents:\n${webviews.join('\n')}`;
          }
          if (server) evidence += `\n${keepLogs(server, `${options.name}-failed-${name}`)}`;
          if (options.logServerOnFailure === true && server)
            console.log(`--- code-server output (tail) ---\n${server.output().slice(-4000)}`);
          // CI prints a failure's error, not the whole output: the evidence goes with it (the
          // error's own stack holds its message as thrown, so a new error carries both).
          if (evidence.trim() === '') throw error;
          throw new Error(`${error instanceof Error ? error.message : String(error)}${evidence}`, { cause: error });
        }
      });
    },
    leftNoExtensionErrors(alsoExpected) {
      it('left no errors from the extension in the page', () => {
        assert.deepEqual(unexpectedExtensionErrors(suite.workbench().errors, alsoExpected), []);
      });
    },
  };
  return suite;
}
