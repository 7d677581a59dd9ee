// The Coroscope extension's entry point. Activation is deliberately light: it registers the
// command ids (their code, in commands.ts, loads on the first call), the inspector panel's
// serializer (which loads it when VS Code restores a panel) and, once package.json declares
// the debugger, the debug adapter (extension/debug/register.ts). No process starts and no
// channel, status bar item or decoration is created until the first command. The time
// activation takes (the bundle's modules evaluating, then activate()) is written to the
// output channel when it first opens.
//
// The run registry (extension/runs/) is made here, empty, and shared: the commands' panel
// and every debug session find runs in it, and a run a debug session launches is shown in
// the panel. deactivate() ends every runtime host (shutdown, then SIGKILL after a grace period).

// First: starts the clock before the other modules evaluate.
import { loadStart } from './load-clock';
import * as vscode from 'vscode';
import { join } from 'node:path';
import { COMMANDS, PANEL_VIEW_TYPE } from './command-ids';
import { CoroscopeOutput } from './output';
import { debuggerDeclared } from './debugger-declared';
import type * as Commands from './commands';
import type * as DebugRegister from './debug/register';
import { PANEL_VIEW } from './runs/run';
import { RunRegistry } from './runs/run-registry';
import { WORKER_STACK_SHOWN_KEY } from './walkthrough';

/** When the bundle's modules (those activation needs: the rest load on the first command) have evaluated. */
const modulesEvaluated = performance.now();

let services: Commands.CoroscopeServices | null = null;
let registry: RunRegistry | null = null;
/** The debug sessions whose run is known, as register.ts last told them. */
let debugSessions: DebugRegister.DebuggedRunSession[] = [];

/** Milliseconds the last activation took: evaluating the bundle's modules, then activate(). */
export let activationMs = -1;
/** Of which activate() itself. */
export let activateCallMs = -1;

/**
 * commands.ts and everything under it, loaded on first use (esbuild defers the module's evaluation to this
 * require).
 */
function commandsModule(): typeof Commands {
  return require('./commands') as typeof Commands;
}

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  const output = new CoroscopeOutput();
  const hostScript = join(context.extensionUri.fsPath, 'dist', 'runtime-host.js');
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
  const runs = new RunRegistry({
    hostScript,
    cwd: workspace?.scheme === 'file' ? workspace.fsPath : undefined,
    clientName: 'coroscope-extension',
  });
  registry = runs;
  const getServices = (): Commands.CoroscopeServices => {
    if (services === null) {
      services = new (commandsModule().CoroscopeServices)(context, output, runs);
      services.debuggedRun.sessionsChanged(debugSessions);
    }
    return services;
  };
  // A run launched from Run and Debug shows in the panel too (one run, every view).
  runs.onDidLaunch.on(({ run, by }) => {
    if (by !== PANEL_VIEW) getServices().showRun(run);
  });
  let handlers: Record<string, (...args: unknown[]) => Promise<void>> | null = null;
  for (const id of Object.values(COMMANDS)) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, (...args: unknown[]) => {
        handlers ??= commandsModule().commandHandlers(getServices);
        const handler = handlers[id];
        return handler === undefined ? undefined : handler(...args);
      }),
    );
  }
  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state) =>
        commandsModule()
          .CoroscopeServices.serializer(() => getServices().panelDependencies())
          .deserializeWebviewPanel(panel, state),
    }),
    output,
    { dispose: () => services?.dispose() },
  );
  try {
    // The debug adapter (extension/debug/) finds its runs in the registry. Its views and
    // debugger type must be declared in package.json first (registering an undeclared view
    // fails with a notification), so it waits until `contributes.debuggers` is there.
    // The Call Stack counts for the walkthrough's first step until it is done.
    const stackWatch: DebugRegister.StackWatch = {
      wanted: () => services === null || !services.contextKeys.get(WORKER_STACK_SHOWN_KEY),
      shown: (run, detail) => getServices().stackShown(run.target, run.phase, detail),
    };
    if (debuggerDeclared(context.extension.packageJSON))
      (require('./debug/register') as typeof DebugRegister).registerDebugger(
        context,
        hostScript,
        runs,
        stackWatch,
        // A logpoint's hits over a recorded run: marks on the panel's timeline when it shows that run.
        (run, body, session) => services?.logpointMarks.received(run, body, session),
        // Which runs are debugged: the panel's "Follow This Task" (kept for services made later).
        (sessions) => {
          debugSessions = sessions;
          services?.debuggedRun.sessionsChanged(sessions);
        },
      );
  } catch (e) {
    output.note(`[coroscope] registering the debugger failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const end = performance.now();
  activateCallMs = end - t0;
  const modulesMs = modulesEvaluated - loadStart;
  activationMs = modulesMs + activateCallMs;
  output.note(
    `[coroscope] activated in ${activationMs.toFixed(1)} ms (modules ${modulesMs.toFixed(1)} ms, activate() ${activateCallMs.toFixed(1)} ms)`,
  );
}

export async function deactivate(): Promise<void> {
  const s = services;
  services = null;
  const r = registry;
  registry = null;
  await s?.shutdown();
  await r?.dispose();
}
