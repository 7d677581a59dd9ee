// The lints list: what the runtime's checks found (slow callbacks, coroutines never awaited,
// tasks destroyed pending, coroutines that never yield, lost wake-ups, deadlocks), newest first, each
// with its task and its source line.

import type { Lint, LintKind } from '../../protocol/host-protocol';
import { isLint } from '../../protocol/webview-protocol';
import { errorText, type AppContext } from '../app-context';
import { h, icon, iconButton, replace } from '../dom';
import { isOpenable, positionText } from '../state/format';

const KIND_LABELS: Record<LintKind, string> = {
  slowCallback: 'Slow callback',
  neverAwaited: 'Never awaited',
  destroyedPending: 'Destroyed pending',
  neverYields: 'Never yields',
  lostWakeup: 'Lost wake-up',
  deadlock: 'Deadlock',
};

export class LintsView {
  readonly element: HTMLElement;
  private readonly list: HTMLDivElement;

  constructor(private readonly app: AppContext) {
    this.list = h('div', { class: 'lints-host' });
    this.element = h(
      'section',
      { class: 'lints-view', attrs: { 'aria-label': 'Lints' } },
      h(
        'div',
        { class: 'view-toolbar' },
        h('span', { class: 'view-title' }, 'Lints'),
        h('span', { class: 'spacer' }),
        iconButton('refresh', 'Ask the runtime for every lint again', () => void this.fetch()),
      ),
      this.list,
    );
  }

  private async fetch(): Promise<void> {
    try {
      const r: unknown = await this.app.client.request('lints', {});
      const lints =
        typeof r === 'object' && r !== null && Array.isArray((r as Record<string, unknown>).lints)
          ? ((r as Record<string, unknown>).lints as unknown[]).filter(isLint)
          : [];
      this.app.data.lints = lints;
      this.app.invalidate();
    } catch (e) {
      this.app.notify(errorText(e), 'error');
    }
  }

  render(): void {
    // In the past, the lints found up to the viewed tick.
    const lints: Lint[] = this.app.viewingPast()
      ? this.app.data.lints.filter((l) => l.tick <= this.app.shownTick())
      : this.app.data.lints;
    if (lints.length === 0) {
      replace(
        this.list,
        h('p', { class: 'muted' }, 'No lints: nothing blocked the loop, every coroutine was awaited.'),
      );
      return;
    }
    const table = h(
      'table',
      { class: 'lints-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'Kind'),
          h('th', null, 'Message'),
          h('th', null, 'Task'),
          h('th', null, 'Where'),
          h('th', null, 'Tick'),
        ),
      ),
    );
    const body = h('tbody');
    for (const l of [...lints].reverse().slice(0, 1000)) {
      const pos = l.position;
      body.appendChild(
        h(
          'tr',
          null,
          h('td', { class: 'lint-kind' }, icon('warning', 'lint-icon'), ' ', KIND_LABELS[l.kind] ?? l.kind),
          h('td', null, l.message),
          h(
            'td',
            null,
            l.taskId !== undefined
              ? h(
                  'a',
                  {
                    class: 'task-link',
                    attrs: { href: '#' },
                    on: {
                      click: (e) => {
                        e.preventDefault();
                        this.app.showTask(l.taskId!);
                      },
                    },
                  },
                  `#${l.taskId}`,
                )
              : '',
          ),
          h(
            'td',
            null,
            isOpenable(pos)
              ? h(
                  'a',
                  {
                    class: 'position-link',
                    attrs: { href: '#' },
                    on: {
                      click: (e) => {
                        e.preventDefault();
                        this.app.openSource(pos);
                      },
                    },
                  },
                  positionText(pos),
                )
              : '',
          ),
          h('td', { class: 'num' }, String(l.tick)),
        ),
      );
    }
    table.appendChild(body);
    replace(this.list, table);
  }
}
