// Registers Coroscope's debugger with VS Code: the inline debug adapter of type `coroscope`
// (CoroscopeSession, one per debug session, each with its own runtime host process), the
// configuration provider (initial and dynamic configurations, a default when there is no
// launch.json), and the "Coroutines" view of the Run and Debug container.
//
// Called from the extension's activate(): `registerDebugger(context, hostScriptPath)` with
// the path of dist/runtime-host.js. Everything registered is in context.subscriptions.

import * as vscode from 'vscode';
import { CoroscopeSession } from './coroscope-session';
import { COROUTINES_VIEW_ID, CoroutinesTreeProvider, REFRESH_COMMAND, REVEAL_TASK_COMMAND, revealTask } from './coroutines-view';
import { DEMO_CRAWL, INITIAL_CONFIGURATIONS, KNOWN_SAMPLES, dynamicConfigurations } from './debug-configurations';

export const DEBUG_TYPE = 'coroscope';

const MODULE_LANGUAGES = new Set(['typescript', 'javascript']);

function activeModuleFile(): boolean {
  const doc = vscode.window.activeTextEditor?.document;
  return doc !== undefined && doc.uri.scheme === 'file' && MODULE_LANGUAGES.has(doc.languageId);
}

class CoroscopeConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly dynamic: boolean) {}

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return this.dynamic ? dynamicConfigurations(activeModuleFile()) : [...INITIAL_CONFIGURATIONS];
  }

  async resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    // F5 without a launch.json: crawl the demo site.
    if (config.type === undefined && config.request === undefined && config.name === undefined) {
      return { ...DEMO_CRAWL };
    }
    const out: vscode.DebugConfiguration = { ...config, type: DEBUG_TYPE, request: config.request ?? 'launch', name: config.name ?? 'Coroscope' };
    // `"sample": ""` asks which one.
    if (out.sample === '') {
      const pick = await vscode.window.showQuickPick(
        KNOWN_SAMPLES.map((s) => ({ label: s.id, description: s.title })),
        { title: 'Coroscope: run which tutorial sample?', placeHolder: 'a sample id' },
      );
      if (pick === undefined) return undefined;
      out.sample = pick.label;
    }
    if (out.cwd === undefined && folder !== undefined) out.cwd = folder.uri.fsPath;
    return out;
  }
}

class CoroscopeAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly hostScriptPath: string) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.DebugAdapterDescriptor {
    const cwd = session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const adapter = new CoroscopeSession({ hostScript: this.hostScriptPath, clientName: 'vscode-debug-adapter', ...(cwd !== undefined ? { cwd } : {}) });
    return new vscode.DebugAdapterInlineImplementation(adapter);
  }
}

export function registerDebugger(context: vscode.ExtensionContext, hostScriptPath: string): void {
  const tree = new CoroutinesTreeProvider();
  const view = vscode.window.createTreeView(COROUTINES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  tree.view = view;
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new CoroscopeAdapterFactory(hostScriptPath)),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new CoroscopeConfigurationProvider(false), vscode.DebugConfigurationProviderTriggerKind.Initial),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new CoroscopeConfigurationProvider(true), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    tree,
    view,
    view.onDidChangeVisibility((e) => {
      if (e.visible) tree.refresh();
    }),
    vscode.commands.registerCommand(REFRESH_COMMAND, () => tree.refresh()),
    vscode.commands.registerCommand(REVEAL_TASK_COMMAND, (task: unknown) => revealTask(task)),
  );
  tree.refresh();
}
