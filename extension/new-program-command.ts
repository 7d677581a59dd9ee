// "Coroscope: New Coroutine Program": in a workspace folder, writes the starter program
// (new-program.ts), a tsconfig.json mapping `coroscope` to the types the extension ships (only
// when the folder has none: an existing one is left as it is, and the user is told the two
// settings to add), and its launch configuration (.vscode/launch.json, once); then opens the
// program and debugs it, stopped on main's first line by a breakpoint placed there.
//
// Invariants: no file of the user's is overwritten (the program gets a free name); the launch
// configuration goes through VS Code's configuration API, which keeps launch.json's comments.

import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  STARTER_FIRST_LINE,
  STARTER_PROGRAM,
  programLaunchConfiguration,
  starterFileName,
  starterTsconfig,
  withLaunchConfiguration,
} from './new-program';

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Coroscope: the folder of the new coroutine program' });
}

export async function newCoroutineProgram(extensionPath: string): Promise<void> {
  const folder = await pickFolder();
  if (folder === undefined) {
    void vscode.window.showErrorMessage(
      'Coroscope: open a folder first (File > Open Folder…): the new program, its tsconfig.json and its launch configuration are written into it.',
    );
    return;
  }
  const dir = folder.uri.fsPath;
  const fileName = starterFileName((name) => existsSync(join(dir, name)));
  const programUri = vscode.Uri.joinPath(folder.uri, fileName);
  const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
  await vscode.workspace.fs.writeFile(programUri, encode(STARTER_PROGRAM));

  const tsconfig = starterTsconfig(extensionPath);
  if (!existsSync(join(extensionPath, 'dist', 'types', 'coroscope', 'runtime', 'index.d.ts'))) {
    // A development build (the .vsix always has them): the program runs, the editor lacks the types.
    void vscode.window.showWarningMessage(
      `Coroscope: this build of the extension has no types in ${join(extensionPath, 'dist', 'types')}: run npm run build:types there for "coroscope" to resolve in the editor.`,
    );
  }
  if (!existsSync(join(dir, 'tsconfig.json')) && !existsSync(join(dir, 'jsconfig.json'))) {
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder.uri, 'tsconfig.json'),
      encode(`${JSON.stringify(tsconfig, null, 2)}\n`),
    );
  } else {
    const options = tsconfig.compilerOptions as Record<string, unknown>;
    void vscode.window.showInformationMessage(
      `Coroscope: this folder has its own tsconfig.json, left as it is. For the types of "coroscope", add to its compilerOptions: "paths": ${JSON.stringify(options.paths)}, and "typeRoots": ${JSON.stringify(options.typeRoots)} if it has no @types/node.`,
    );
  }

  const config = programLaunchConfiguration(fileName);
  const launch = vscode.workspace.getConfiguration('launch', folder.uri);
  const configurations = withLaunchConfiguration(launch.get<unknown>('configurations'), config);
  if (configurations !== null) {
    if (launch.get<unknown>('version') === undefined)
      await launch.update('version', '0.2.0', vscode.ConfigurationTarget.WorkspaceFolder);
    await launch.update('configurations', configurations, vscode.ConfigurationTarget.WorkspaceFolder);
  }

  const document = await vscode.workspace.openTextDocument(programUri);
  await vscode.window.showTextDocument(document, { preview: false });
  const firstLine = new vscode.Position(STARTER_FIRST_LINE - 1, 0);
  vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(programUri, firstLine))]);
  await vscode.debug.startDebugging(folder, config);
}
