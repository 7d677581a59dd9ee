// The "Coroscope" output channel: the crawler's report and the samples' output (the host's
// `output` events, as written), the host's own log lines (prefixed), and what the extension
// itself has to say (activation time, host exits). Created on first use, so that activation
// creates nothing.

import * as vscode from 'vscode';

export class CoroscopeOutput implements vscode.Disposable {
  private channel: vscode.OutputChannel | null = null;
  private readonly early: string[] = [];

  private get(): vscode.OutputChannel {
    if (this.channel === null) {
      this.channel = vscode.window.createOutputChannel('Coroscope');
      for (const line of this.early.splice(0)) this.channel.appendLine(line);
    }
    return this.channel;
  }

  /** Remembers a line without creating the channel (written when it is created). */
  note(line: string): void {
    if (this.channel === null) this.early.push(line);
    else this.channel.appendLine(line);
  }

  /** Text as the host wrote it (its own line breaks). */
  append(text: string): void {
    this.get().append(text);
  }

  line(text: string): void {
    this.get().appendLine(text);
  }

  /** A host log text: each line prefixed with [host]. */
  hostLog(text: string): void {
    const lines = text.replace(/\n$/, '').split('\n');
    const ch = this.get();
    for (const l of lines) ch.appendLine(`[host] ${l}`);
  }

  show(): void {
    this.get().show(true);
  }

  dispose(): void {
    this.channel?.dispose();
  }
}
