// Opens a position the host reported (a TypeScript file of the runtime, the crawler or a
// sample inside the installed extension, or a user's program) in an editor, with the line
// selected and revealed in the centre. Positions are 1-based; `node:` and other internal
// frames have no file to open.

import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';

export function isOpenablePath(file: string): boolean {
  return isAbsolute(file) && !file.startsWith('node:') && existsSync(file);
}

export async function openSourcePosition(
  position: { file: string; line: number; column: number },
  viewColumn?: vscode.ViewColumn,
): Promise<boolean> {
  let uri: vscode.Uri;
  if (position.file.startsWith('file://')) uri = vscode.Uri.parse(position.file);
  else if (isOpenablePath(position.file)) uri = vscode.Uri.file(position.file);
  else {
    void vscode.window.showWarningMessage(`Coroscope: no source file to open for ${position.file}`);
    return false;
  }
  const line = Math.max(0, position.line - 1);
  const column = Math.max(0, position.column - 1);
  const range = new vscode.Range(line, column, line, column);
  const editor = await vscode.window.showTextDocument(uri, {
    viewColumn: viewColumn ?? vscode.ViewColumn.One,
    preserveFocus: false,
    preview: true,
    selection: range,
  });
  // Always centred: a line at the viewport's top edge is inside it for VS Code yet hidden under the
  // editor's sticky scroll lines (on by default), where the frame clicked would not be seen.
  editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
  return true;
}
