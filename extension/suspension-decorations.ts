// Editor decorations on the lines where tasks are suspended now: a line highlight, a short
// count after the line ("‖ 20 tasks suspended here") and a hover listing the tasks, for every frame of
// every suspended task's `yield*` chain (the innermost frame is where it waits; the outer
// ones are where it delegates).
//
// Positions come from the snapshot's `location` when the host gives it, else from
// taskDetail (frames without locals), asked for at most MAX_DETAILS tasks per refresh and
// only while a TypeScript editor is visible; refreshes are throttled (REFRESH_MS while the
// loop runs, at once on a pause or a step), and cleared when the run ends. When the views
// show a past tick (the scrubber, Step Back), the marks are those of that tick: the session's
// table and the host's taskDetail answer for it, also for a run that has finished.

import * as vscode from 'vscode';
import type { TaskSummary } from '../protocol/host-protocol';
import type { RunSession } from './run-session';
import { groupMarks, markLabel, type LineMark } from './suspension-marks';

const REFRESH_MS = 1500;
const MAX_DETAILS = 60;
const MAX_HOVER_TASKS = 12;

export class SuspensionDecorations implements vscode.Disposable {
  private type: vscode.TextEditorDecorationType | null = null;
  private marks = new Map<string, LineMark[]>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing = false;
  private lastRefresh = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly session: RunSession) {
    this.unsubscribe.push(
      session.onSnapshot.on(() => this.schedule(false)),
      session.onStatus.on((s) => {
        if (s.phase === 'paused') this.schedule(true);
        else if (s.phase !== 'running' && s.viewedTick === undefined) this.clear();
      }),
      // A new moment shown: its marks once its table has come (the session refetches it).
      session.onViewed.on(() => this.clear()),
      session.onSnapshot.on(({ change }) => {
        if (change.full && this.session.viewingPast()) this.schedule(true);
      }),
    );
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors(() => {
        this.apply();
        // A TypeScript editor just shown may need marks nobody computed yet.
        if (this.showsRun()) this.schedule(this.session.status.phase === 'paused' || this.session.viewingPast());
      }),
    );
  }

  private decorationType(): vscode.TextEditorDecorationType {
    if (this.type === null) {
      this.type = vscode.window.createTextEditorDecorationType({
        // No gutter icon: VS Code does not toggle a breakpoint by a click on a line whose glyph margin
        // holds another extension's icon, and these lines are where users want breakpoints.
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.infoForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 2em' },
      });
    }
    return this.type;
  }

  private schedule(now: boolean): void {
    if (this.timer !== null) {
      if (!now) return;
      clearTimeout(this.timer);
    }
    const wait = now ? 0 : Math.max(0, REFRESH_MS - (Date.now() - this.lastRefresh));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, wait);
  }

  private tsEditorsVisible(): boolean {
    return vscode.window.visibleTextEditors.some(
      (e) => e.document.uri.scheme === 'file' && /\.[cm]?[tj]sx?$/.test(e.document.uri.fsPath),
    );
  }

  /** A live run, or a moment of a run shown by the scrubber. */
  private showsRun(): boolean {
    return this.session.isActive() || this.session.viewingPast();
  }

  private async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.lastRefresh = Date.now();
    if (!this.showsRun() || !this.tsEditorsVisible()) {
      if (!this.showsRun()) this.clear();
      return;
    }
    this.refreshing = true;
    try {
      const suspended = [...this.session.mirror.tasks.values()]
        .filter((t) => t.state === 'suspended')
        .sort((a, b) => a.id - b.id);
      const entries: Array<{ task: TaskSummary; frames: Array<{ name: string; file: string; line: number }> }> = [];
      let asked = 0;
      for (const task of suspended) {
        if (task.location !== undefined) {
          entries.push({
            task,
            frames: [
              {
                name: task.frames[task.frames.length - 1] ?? task.name,
                file: task.location.file,
                line: task.location.line,
              },
            ],
          });
          continue;
        }
        if (asked >= MAX_DETAILS) continue;
        asked++;
        try {
          const d = await this.session.request('taskDetail', { taskId: task.id, locals: false });
          const frames = d.frames
            .filter((f) => f.position !== null)
            .map((f) => ({ name: f.name, file: f.position!.file, line: f.position!.line }));
          if (frames.length > 0) entries.push({ task: d.task, frames });
        } catch {
          // The task finished meanwhile, or the host went away.
        }
      }
      this.marks = groupMarks(entries);
      this.apply();
    } finally {
      this.refreshing = false;
    }
  }

  private apply(): void {
    if (this.marks.size === 0 && this.type === null) return;
    const type = this.decorationType();
    for (const editor of vscode.window.visibleTextEditors) {
      const marks = this.marks.get(editor.document.uri.fsPath) ?? [];
      const options: vscode.DecorationOptions[] = marks
        .filter((m) => m.line >= 1 && m.line <= editor.document.lineCount)
        .map((m) => {
          const hover = new vscode.MarkdownString(undefined, false);
          hover.isTrusted = false;
          hover.supportHtml = false;
          const n = m.waiting.length + m.delegating.length;
          hover.appendMarkdown(`**Coroscope:** ${n} task${n === 1 ? '' : 's'} suspended at this line\n\n`);
          for (const w of m.waiting.slice(0, MAX_HOVER_TASKS)) {
            hover.appendMarkdown('- ');
            hover.appendText(`#${w.id} ${w.name}: waits here${w.awaiting !== '' ? ` on ${w.awaiting}` : ''}`);
            hover.appendMarkdown('\n');
          }
          for (const d of m.delegating.slice(0, Math.max(0, MAX_HOVER_TASKS - m.waiting.length))) {
            hover.appendMarkdown('- ');
            hover.appendText(`#${d.id} ${d.name}: in ${d.frame}, awaiting an inner coroutine`);
            hover.appendMarkdown('\n');
          }
          if (n > MAX_HOVER_TASKS) hover.appendText(`… and ${n - MAX_HOVER_TASKS} more`);
          const line = m.line - 1;
          return {
            range: new vscode.Range(line, 0, line, editor.document.lineAt(line).text.length),
            hoverMessage: hover,
            renderOptions: { after: { contentText: markLabel(m) } },
          };
        });
      editor.setDecorations(type, options);
    }
  }

  clear(): void {
    this.marks = new Map();
    if (this.type !== null) for (const e of vscode.window.visibleTextEditors) e.setDecorations(this.type, []);
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    for (const u of this.unsubscribe) u();
    for (const d of this.disposables) d.dispose();
    this.type?.dispose();
  }
}
