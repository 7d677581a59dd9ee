// The "Coroutines" tree view in the Run and Debug container: the tasks of the active
// `coroscope` debug session grouped by state and, for suspended ones, by what they await
// (coroutine-groups.ts). It asks the session with the custom DAP request `coroscope/tasks`
// and refreshes on the adapter's `coroscope/tasksChanged` event, on a change of active
// session and on the view's refresh button. Clicking a task opens where it is suspended.
//
// Invariants: at most one `coroscope/tasks` request in flight (a refresh asked meanwhile is
// done once it answers); no session, a session of another type, or a failed request show an
// empty tree with a message, never an error popup.

import * as vscode from 'vscode';
import { TASKS_CHANGED_EVENT, TASKS_REQUEST, narrowTasksBody, type TaskRow, type TasksBody } from './custom-requests';
import { groupTasks, type AwaitGroup, type StateGroup } from './coroutine-groups';

import { REVEAL_TASK_COMMAND } from './coroutines-view-ids';

export { COROUTINES_VIEW_ID, REFRESH_COMMAND, REVEAL_TASK_COMMAND } from './coroutines-view-ids';

type Node =
  | { kind: 'state'; group: StateGroup }
  | { kind: 'await'; group: AwaitGroup }
  | { kind: 'task'; task: TaskRow };

const STATE_ICONS: Record<string, string> = {
  running: 'debug-start',
  scheduled: 'clock',
  suspended: 'debug-pause',
  failed: 'error',
  cancelled: 'circle-slash',
  done: 'pass',
};

export class CoroutinesTreeProvider implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private groups: StateGroup[] = [];
  private inFlight = false;
  private again = false;
  private readonly disposables: vscode.Disposable[] = [];
  /** Set by register.ts: the view, for its message line. */
  view: vscode.TreeView<Node> | null = null;

  constructor() {
    this.disposables.push(
      this.changed,
      vscode.debug.onDidChangeActiveDebugSession(() => this.refresh()),
      vscode.debug.onDidTerminateDebugSession(() => this.refresh()),
      vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
        if (
          e.session.type === 'coroscope' &&
          e.event === TASKS_CHANGED_EVENT &&
          e.session === vscode.debug.activeDebugSession
        )
          this.refresh();
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** Asks the active coroscope session for its tasks and redraws. */
  refresh(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    const session = vscode.debug.activeDebugSession;
    if (session === undefined || session.type !== 'coroscope') {
      this.show(null, 'Start a Coroscope debug session to see its coroutines.');
      return;
    }
    this.inFlight = true;
    Promise.resolve(session.customRequest(TASKS_REQUEST))
      .then(
        (answer: unknown) => {
          const body = narrowTasksBody(answer);
          this.show(body, body === null ? 'The debug adapter sent no tasks.' : undefined);
        },
        (e: unknown) => this.show(null, `No tasks: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }

  private show(body: TasksBody | null, message: string | undefined): void {
    this.groups = body === null ? [] : groupTasks(body.tasks);
    if (this.view !== null) {
      const live =
        body === null
          ? 0
          : body.tasks.filter((t) => t.state !== 'done' && t.state !== 'failed' && t.state !== 'cancelled').length;
      this.view.message =
        message ??
        (body === null
          ? undefined
          : `${live} live tasks · tick ${body.tick}${body.running ? (body.paused ? ' · paused' : ' · running') : ' · finished'}`);
      this.view.description = body === null ? undefined : `${body.tasks.length} tasks`;
    }
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (node === undefined) return this.groups.map((group) => ({ kind: 'state', group }));
    if (node.kind === 'state') {
      if (node.group.awaits.length > 0) return node.group.awaits.map((group) => ({ kind: 'await', group }));
      return node.group.tasks.map((task) => ({ kind: 'task', task }));
    }
    if (node.kind === 'await') return node.group.tasks.map((task) => ({ kind: 'task', task }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'state') {
      const g = node.group;
      const item = new vscode.TreeItem(
        `${g.state} (${g.tasks.length})`,
        g.state === 'done' || g.state === 'cancelled'
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.iconPath = new vscode.ThemeIcon(STATE_ICONS[g.state] ?? 'circle-outline');
      item.id = `state:${g.state}`;
      item.contextValue = 'coroscopeState';
      return item;
    }
    if (node.kind === 'await') {
      const g = node.group;
      const item = new vscode.TreeItem(
        `${g.label} (${g.tasks.length})`,
        g.tasks.length > 20 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
      );
      item.iconPath = new vscode.ThemeIcon('watch');
      item.id = `await:${g.key}`;
      item.tooltip = `${g.tasks.length} task(s) awaiting ${g.label}`;
      item.contextValue = 'coroscopeAwait';
      return item;
    }
    const t = node.task;
    const item = new vscode.TreeItem(`${t.name} #${t.id}`, vscode.TreeItemCollapsibleState.None);
    item.id = `task:${t.id}`;
    item.description =
      t.awaiting !== null
        ? `${t.awaiting.kind}${t.awaiting.detail !== '' ? ` ${t.awaiting.detail}` : ''}`
        : (t.outcome ?? '');
    const chain = t.frames.length > 0 ? `\n${t.frames.join(' → ')}` : '';
    item.tooltip = `${t.name} #${t.id}: ${t.state}, ${t.steps} steps${t.createdBy !== null ? `, created by #${t.createdBy}` : ''}${t.awaitedBy.length > 0 ? `, awaited by ${t.awaitedBy.map((i) => `#${i}`).join(', ')}` : ''}${chain}`;
    item.iconPath = new vscode.ThemeIcon(STATE_ICONS[t.state] ?? 'circle-outline');
    item.contextValue = 'coroscopeTask';
    if (t.location !== undefined)
      item.command = { command: REVEAL_TASK_COMMAND, title: 'Show where the task is', arguments: [t] };
    return item;
  }
}

/** Opens the source line where a task is suspended. */
export async function revealTask(task: unknown): Promise<void> {
  const loc = typeof task === 'object' && task !== null ? (task as { location?: unknown }).location : undefined;
  if (typeof loc !== 'object' || loc === null) return;
  const { file, line } = loc as { file?: unknown; line?: unknown };
  if (typeof file !== 'string' || typeof line !== 'number') return;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const position = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(position, position), preview: true });
}
