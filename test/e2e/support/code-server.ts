/**
 * Starts a real VS Code, as code-server, for one end-to-end test, and stops it again.
 *
 * code-server is installed outside the project's node_modules by
 * test/e2e/setup/install-code-server.sh, in CODE_SERVER_HOME (default
 * <project>/.vscode-test/code-server); this module finds it the same way.
 *
 * Invariants:
 * - Every server gets fresh, private state in one temporary folder: user-data-dir (with the
 *   given User/settings.json written before start, or none at all with `noSettingsFile`:
 *   VS Code's own defaults, as on a first start), extensions-dir, a config file and the
 *   XDG folders, so nothing is read from or written to the user's home
 *   (~/.config/code-server, ~/.local/share/code-server) and runs cannot see each other.
 * - It listens on 127.0.0.1 only, on a port the kernel picks (port 0, read back from
 *   code-server's log line), with authentication, telemetry, update checks and the
 *   extension gallery off, so that it never reaches for the network.
 * - `start` resolves only once the server answers HTTP; if it exits or does not answer in
 *   time, it rejects with the server's output and leaves no process behind.
 * - `stop()` ends the whole process tree: code-server runs in a process group of its own,
 *   and the descendants found under /proc are signalled too (terminals started through
 *   node-pty call setsid and so leave the group); SIGTERM first, SIGKILL after a grace
 *   period. It is idempotent. A server still running when the test process exits or is
 *   interrupted is killed then.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Pids of runtime hosts started from this server's extensions folder (found in /proc).
 * `lineReplay: false` leaves out the line replay hosts a debugged recorded run forks beside
 * its own (`--line-replay`, runtime/host/worker/line-replay-host.ts): the run's hosts only.
 */
export function runtimeHostPids(extensionsDir: string, options: { lineReplay?: boolean } = {}): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!cmd.some((a) => a.startsWith(extensionsDir) && a.endsWith('runtime-host.js'))) continue;
      if (options.lineReplay === false && cmd.includes('--line-replay')) continue;
      out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export const CODE_SERVER_VERSION = '4.100.3';

const projectRoot = resolve(__dirname, '..', '..', '..');
const INSTALL_SCRIPT = 'test/e2e/setup/install-code-server.sh';

/** Settings that keep a fresh VS Code quiet and offline: no welcome page, tips, trust or
 *  telemetry prompts, no update or marketplace checks, no downloads by built-in extensions. */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.settings.enableNaturalLanguageSearch': false,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.openRepositoryInParentFolders': 'never',
  'npm.fetchOnlinePackageInfo': false,
  'json.schemaDownload.enable': false,
  'typescript.disableAutomaticTypeAcquisition': true,
  'chat.commandCenter.enabled': false,
  // Stable screenshots: no animations, no blinking cursor.
  'workbench.reduceMotion': 'on',
  'editor.cursorBlinking': 'solid',
  // The DOM renderer keeps the terminal's text in the page, where a test can read it.
  'terminal.integrated.gpuAcceleration': 'off',
};

export interface CodeServerOptions {
  /** Folder opened as the workspace. */
  readonly workspace: string;
  /** Merged over QUIET_SETTINGS and written to User/settings.json before start. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Write no User/settings.json at all (neither QUIET_SETTINGS nor `settings`): VS Code
   *  starts with its own defaults, the Welcome page open, as a new user sees it. */
  readonly noSettingsFile?: boolean;
  /** .vsix files installed with --install-extension into the fresh extensions-dir first. */
  readonly vsix?: readonly string[];
  /** Extra command-line arguments for code-server (e.g. ['--enable-proposed-api', 'x.y']). */
  readonly args?: readonly string[];
  /** Extra environment for the server (and so for its extension host and terminals). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the first HTTP answer; default 60 s. */
  readonly startTimeoutMs?: number;
  /** Keep the temporary folder after stop() (also with E2E_KEEP_TMP=1), for debugging. */
  readonly keepTempDir?: boolean;
}

export interface CodeServer {
  /** Workbench URL with the workspace folder selected: open this in the browser. */
  readonly url: string;
  /** http://127.0.0.1:PORT/ */
  readonly origin: string;
  readonly port: number;
  readonly pid: number;
  readonly tempDir: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly workspace: string;
  /** Everything the server printed so far (also in tempDir/code-server.log). */
  output(): string;
  /** Rewrites User/settings.json (QUIET_SETTINGS, start settings, then these; only these
   *  with noSettingsFile). Takes effect
   *  when a workbench page is loaded (or reloaded): the server sees the change on disk but an
   *  open VS Code web page does not apply it (measured); use the UI for live changes. */
  updateSettings(settings: Readonly<Record<string, unknown>>): void;
  stop(): Promise<void>;
}

export interface DevelopmentExtension {
  /** Folder of an unpacked extension (its package.json), loaded as in "Run Extension". */
  readonly extensionDevelopmentPath: string;
  /** Module whose `run(): Promise<void>` VS Code calls in the extension host, then exits
   *  the extension host with 0, or 1 if it threw (see runExtensionTests in browser.ts). */
  readonly extensionTestsPath?: string;
}

/** The workbench URL with VS Code web's `payload` parameter that loads an unpacked extension
 *  folder from this machine into the (Node) extension host, and optionally runs its tests.
 *  Paths are given as vscode-remote URIs whose authority is the server's host:port. */
export function developmentUrl(server: CodeServer, extension: DevelopmentExtension): string {
  const remote = (path: string): string =>
    `vscode-remote://127.0.0.1:${server.port}${resolve(path).split('/').map(encodeURIComponent).join('/')}`;
  const payload: [string, string][] = [['extensionDevelopmentPath', remote(extension.extensionDevelopmentPath)]];
  if (extension.extensionTestsPath !== undefined)
    payload.push(['extensionTestsPath', remote(extension.extensionTestsPath)]);
  return `${server.url}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export function codeServerHome(): string {
  return process.env.CODE_SERVER_HOME ?? join(projectRoot, '.vscode-test', 'code-server');
}

/** Path of code-server's entry.js; throws, saying how to install it, when it is missing. */
export function codeServerEntry(): string {
  const home = codeServerHome();
  const entry = join(home, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const marker = join(home, '.coroscope-installed');
  if (
    !existsSync(entry) ||
    !existsSync(marker) ||
    !readFileSync(marker, 'utf8').includes(`code-server=${CODE_SERVER_VERSION} `)
  ) {
    throw new Error(
      `code-server ${CODE_SERVER_VERSION} is not installed in ${home}: run \`bash ${INSTALL_SCRIPT}\` (as root) first`,
    );
  }
  return entry;
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const entry = codeServerEntry();
  const workspace = resolve(options.workspace);
  if (!existsSync(workspace)) throw new Error(`workspace folder does not exist: ${workspace}`);

  const tempDir = mkdtempSync(join(tmpdir(), 'coroscope-cs-'));
  const userDataDir = join(tempDir, 'user-data');
  const extensionsDir = join(tempDir, 'extensions');
  const configFile = join(tempDir, 'config.yaml');
  for (const dir of [
    userDataDir,
    extensionsDir,
    join(userDataDir, 'User'),
    join(tempDir, 'xdg-config'),
    join(tempDir, 'xdg-data'),
    join(tempDir, 'xdg-cache'),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  // Our own config file, so that code-server does not write one with a password to ~/.config.
  writeFileSync(configFile, 'auth: none\ncert: false\n');
  let settings: Record<string, unknown> =
    options.noSettingsFile === true ? {} : { ...QUIET_SETTINGS, ...options.settings };
  const writeSettings = (): void =>
    writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  if (options.noSettingsFile === true) {
    if (options.settings !== undefined) throw new Error('noSettingsFile and settings exclude each other');
  } else {
    writeSettings();
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: join(tempDir, 'xdg-config'),
    XDG_DATA_HOME: join(tempDir, 'xdg-data'),
    XDG_CACHE_HOME: join(tempDir, 'xdg-cache'),
    // No extension gallery: otherwise the workbench and the server query open-vsx.org
    // (failing here with ENOTFOUND) e.g. when an extension is loaded for development.
    EXTENSIONS_GALLERY: '{}',
    ...options.env,
  };
  // Variables of an outer VS Code / code-server would confuse this one.
  for (const name of [
    'VSCODE_IPC_HOOK_CLI',
    'VSCODE_PID',
    'VSCODE_CWD',
    'VSCODE_NLS_CONFIG',
    'ELECTRON_RUN_AS_NODE',
    'CODE_SERVER_PARENT_PID',
    'PASSWORD',
    'HASHED_PASSWORD',
    'PORT',
  ]) {
    delete env[name];
  }
  const commonArgs = ['--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const removeTemp = (): void => {
    if (!options.keepTempDir && process.env.E2E_KEEP_TMP !== '1') rmSync(tempDir, { recursive: true, force: true });
  };

  try {
    for (const vsix of options.vsix ?? []) {
      await installExtension(entry, commonArgs, resolve(vsix), env);
    }
  } catch (error) {
    removeTemp();
    throw error;
  }

  const logFile = join(tempDir, 'code-server.log');
  const logStream = createWriteStream(logFile);
  const child = spawn(
    process.execPath,
    [
      entry,
      ...commonArgs,
      '--auth',
      'none',
      '--bind-addr',
      '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      ...(options.args ?? []),
      workspace,
    ],
    { cwd: tempDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) {
    removeTemp();
    throw new Error('could not spawn code-server');
  }
  const output = new OutputBuffer();
  const onData = (chunk: Buffer): void => {
    output.append(chunk.toString('utf8'));
    logStream.write(chunk);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  liveServers.set(pid, removeTemp);
  installExitHooks();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await killTree(pid, child, exited);
      liveServers.delete(pid);
      await new Promise<void>((done) => logStream.end(done));
      removeTemp();
    })();
    return stopping;
  };

  try {
    const port = await waitForListeningPort(child, output, options.startTimeoutMs ?? 60_000);
    const origin = `http://127.0.0.1:${port}/`;
    await waitForHttp(`${origin}healthz`, child, options.startTimeoutMs ?? 60_000);
    return {
      url: `${origin}?folder=${encodeURIComponent(workspace)}`,
      origin,
      port,
      pid,
      tempDir,
      userDataDir,
      extensionsDir,
      workspace,
      output: () => output.text(),
      updateSettings(next) {
        settings = { ...settings, ...next };
        writeSettings();
      },
      stop,
    };
  } catch (error) {
    const text = output.text();
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- code-server output ---\n${text}`);
  }
}

/** Runs `code-server --install-extension file.vsix` against the given dirs and waits for it. */
async function installExtension(
  entry: string,
  commonArgs: readonly string[],
  vsix: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (!existsSync(vsix)) throw new Error(`no such .vsix: ${vsix}`);
  const child = spawn(process.execPath, [entry, ...commonArgs, '--install-extension', vsix, '--force'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = new OutputBuffer();
  child.stdout.on('data', (chunk: Buffer) => output.append(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => output.append(chunk.toString('utf8')));
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('exit', (exitCode) => done(exitCode));
  });
  // Exit code 1 and "Failed Installing Extensions" on failure; check the success line too.
  if (code !== 0 || !/successfully installed/i.test(output.text())) {
    throw new Error(`installing ${vsix} failed (exit ${code}):\n${output.text()}`);
  }
}

const LISTENING_LINE = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)\//;

function waitForListeningPort(child: ChildProcess, output: OutputBuffer, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolvePort, reject) => {
    const check = (): boolean => {
      const match = LISTENING_LINE.exec(output.text());
      if (match === null) return false;
      finish();
      resolvePort(Number(match[1]));
      return true;
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      finish();
      reject(new Error(`code-server exited before listening (code ${code}, signal ${signal})`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`code-server did not listen within ${timeoutMs} ms`));
    }, timeoutMs);
    const poll = setInterval(check, 50);
    const finish = (): void => {
      clearTimeout(timer);
      clearInterval(poll);
      child.off('exit', onExit);
    };
    child.once('exit', onExit);
    check();
  });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error('code-server exited before answering HTTP');
    const status = await httpStatus(url).catch(() => undefined);
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms (last status ${status})`);
    await delay(100);
  }
}

function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((done, fail) => {
    const request = get(url, { timeout: 2_000 }, (response) => {
      response.resume();
      done(response.statusCode);
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', fail);
  });
}

// --- process tree ----------------------------------------------------------------------

/** Live processes by parent pid, read from /proc (zombies count as gone). */
function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') continue;
    const ppid = Number(fields[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  return children;
}

function descendants(root: number): number[] {
  const children = processChildren();
  const found: number[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Signals the group led by `pid` and every known descendant. */
function signalTree(pid: number, known: Set<number>, sig: NodeJS.Signals): void {
  for (const other of descendants(pid)) known.add(other);
  signal(-pid, sig);
  for (const other of known) signal(other, sig);
}

async function killTree(pid: number, child: ChildProcess, exited: Promise<void>, graceMs = 5_000): Promise<void> {
  const known = new Set<number>(descendants(pid));
  const running = child.exitCode === null && child.signalCode === null;
  if (running) {
    signalTree(pid, known, 'SIGTERM');
    const inTime = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
    if (!inTime) signalTree(pid, known, 'SIGKILL');
    await exited;
  }
  // Children that outlived their parent (reparented, so no longer under `pid`).
  const deadline = Date.now() + graceMs;
  let survivors = [...known].filter(isAlive);
  while (survivors.length > 0 && Date.now() < deadline) {
    for (const other of survivors) signal(other, 'SIGTERM');
    await delay(100);
    survivors = survivors.filter(isAlive);
  }
  for (const other of survivors) signal(other, 'SIGKILL');
  signal(-pid, 'SIGKILL');
}

// --- last resort when the test process ends without stop() --------------------------------

/** Running servers: pid → what removes their temporary folder. */
const liveServers = new Map<number, () => void>();
let exitHooksInstalled = false;

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = (): void => {
    for (const [pid, removeTemp] of liveServers) {
      for (const other of descendants(pid)) signal(other, 'SIGKILL');
      signal(-pid, 'SIGKILL');
      try {
        removeTemp();
      } catch {
        // a process may still hold a file open: leave the folder
      }
    }
    liveServers.clear();
  };
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig); // the default action, now that our listener is gone
    });
  }
}

// --- small helpers -------------------------------------------------------------------------

/** Keeps the last `limit` characters of a process's output. */
class OutputBuffer {
  private chunks = '';
  constructor(private readonly limit = 1_000_000) {}
  append(text: string): void {
    this.chunks += text;
    if (this.chunks.length > this.limit) this.chunks = this.chunks.slice(-this.limit);
  }
  text(): string {
    return this.chunks;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
