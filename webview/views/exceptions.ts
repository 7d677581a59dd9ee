// Exceptions: first the run's own failures, the URLs that failed in this run (as many as the
// dashboard's error count) and the exceptions its tasks raised, each with its coroutine
// traceback; then the coroutine traceback and the "stack-ripped" callback trace of the same
// failure side by side (the host's `traces` pair: this run's own failed URL), each frame
// marked when the other trace lacks it. A run with no failure offers the demonstration (a
// crawl of a failing page on a demo site of its own) behind a button: what is shown and when
// is webview/state/exceptions-plan.ts.
//
// Invariant: a pair that is not the run's own is asked for again once the run's error count
// grows; the demonstration is never shown above, or beside, a failure of the run.

import type { Traceback, TraceFrame, TracePair } from '../../protocol/host-protocol';
import { isTracePair } from '../../protocol/webview-protocol';
import { errorText, type AppContext } from '../app-context';
import { h, icon, iconButton, replace } from '../dom';
import { baseName, isOpenable } from '../state/format';
import { exceptionGroups, planExceptions } from '../state/exceptions-plan';

const KIND_LABEL: Record<TraceFrame['kind'], string> = {
  coroutine: 'coroutine',
  callback: 'callback',
  loop: 'loop',
  native: 'node',
};

export class ExceptionsView {
  readonly element: HTMLElement;
  private pair: TracePair | null = null;
  private pairError: string | null = null;
  /** The run's error count when the pair was asked for (a failure since: ask again). */
  private errorsAtFetch = 0;
  private loading = false;
  private showMachinery = false;
  /** The demonstration's button was pressed (until the next run). */
  private demoAsked = false;
  private readonly pairHost: HTMLDivElement;
  private readonly listHost: HTMLDivElement;

  constructor(private readonly app: AppContext) {
    this.pairHost = h('div', { class: 'trace-pair-host' });
    this.listHost = h('div', { class: 'exception-list-host' });
    const machinery = h('input', {
      attrs: { type: 'checkbox', id: 'show-machinery' },
      on: {
        change: () => {
          this.showMachinery = machinery.checked;
          this.render();
        },
      },
    });
    this.element = h(
      'section',
      { class: 'exceptions-view', attrs: { 'aria-label': 'Exceptions' } },
      h(
        'div',
        { class: 'view-toolbar' },
        h('span', { class: 'view-title' }, 'Coroutine traceback vs callback trace'),
        h('span', { class: 'spacer' }),
        h('label', { class: 'check' }, machinery, ' Show loop and Node frames'),
        iconButton('refresh', 'Load the trace pair again', () => void this.fetch()),
      ),
      this.listHost,
      this.pairHost,
    );
  }

  reset(): void {
    this.pair = null;
    this.pairError = null;
    this.errorsAtFetch = 0;
    this.demoAsked = false;
  }

  private errorCount(): number {
    return this.app.data.lastProgress?.errors ?? 0;
  }

  private async fetch(): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    this.errorsAtFetch = this.errorCount();
    this.render();
    try {
      const p: unknown = await this.app.client.request('traces', {});
      if (!isTracePair(p)) throw new Error('malformed trace pair');
      this.pair = p;
      this.pairError = null;
    } catch (e) {
      this.pairError = errorText(e);
    } finally {
      this.loading = false;
      this.app.invalidate();
    }
  }

  render(): void {
    const retry = this.pair === null && this.pairError !== null && this.errorCount() > this.errorsAtFetch;
    const plan = planExceptions({
      taskFailures: this.app.data.exceptions.length,
      urlFailures: this.errorCount(),
      pair: this.pair === null ? null : { own: this.pair.runId !== undefined },
      urlFailuresAtFetch: this.errorsAtFetch,
      demoAsked: this.demoAsked,
      fetching: this.loading || (this.pairError !== null && !retry),
    });
    if (plan.fetchPair) void this.fetch();
    if (plan.demoButton) {
      replace(
        this.pairHost,
        h(
          'p',
          { class: 'muted' },
          'This run has no failure. A demonstration shows a failure as the coroutine crawler and the callback crawler each report it: a crawl of a failing page on a demo site of its own.',
        ),
        h(
          'button',
          {
            class: 'demo-button',
            on: {
              click: () => {
                this.demoAsked = true;
                this.render();
              },
            },
          },
          'Show the demonstration',
        ),
      );
    } else if (this.pair !== null && plan.showPair) {
      const p = this.pair;
      const whose =
        p.runId !== undefined
          ? ['The failure of this run at ', h('code', null, p.url), ', as the coroutine crawler raised it']
          : ['A demonstration: a crawl of ', h('code', null, p.url), ' on a demo site of its own'];
      replace(
        this.pairHost,
        h(
          'p',
          { class: 'trace-intro' },
          ...whose,
          ': on the left as the coroutine crawler sees it (the whole ',
          h('code', null, 'yield*'),
          ' chain), on the right as the callback crawler does fetching the same page (only the callback the loop called). Frames one trace lacks are marked.',
        ),
        h(
          'div',
          { class: 'trace-pair' },
          this.traceColumn(p.coroutine, 'coroutine'),
          this.traceColumn(p.callback, 'callback'),
        ),
      );
    } else if (this.pairError !== null && (this.demoAsked || this.errorCount() > 0)) {
      replace(this.pairHost, h('div', { class: 'inline-error' }, icon('warning'), ' ', this.pairError));
    } else if (this.loading) {
      replace(this.pairHost, h('p', { class: 'muted' }, 'Loading the trace pair…'));
    } else {
      replace(this.pairHost);
    }
    const list = this.app.data.exceptions;
    const groups = exceptionGroups(list);
    const deadlocks =
      groups.deadlocks.length === 0
        ? []
        : [
            h('h3', { class: 'section-title deadlocks-title' }, `Deadlocks in this run (${groups.deadlocks.length})`),
            this.exceptionList(groups.deadlocks, 'lock'),
          ];
    replace(
      this.listHost,
      ...this.failedUrls(),
      ...deadlocks,
      h('h3', { class: 'section-title' }, `Tasks that failed in this run (${groups.failures.length})`),
      groups.failures.length === 0
        ? h(
            'p',
            { class: 'muted' },
            "No task has failed in this run (a crawler's worker catches the error of a URL and goes on).",
          )
        : this.exceptionList(groups.failures, 'error'),
    );
  }

  /** The run's exception entries at these indexes, each opening to its traceback. */
  private exceptionList(indexes: readonly number[], iconName: string): HTMLElement {
    const list = this.app.data.exceptions;
    const items = h('ol', { class: 'exception-list' });
    const sel = this.app.ui().selectedException;
    for (const i of indexes) {
      const x = list[i]!;
      const open = sel === i;
      const li = h(
        'li',
        { class: `exception-item${open ? ' open' : ''}` },
        h(
          'div',
          {
            class: 'exception-head',
            attrs: { tabindex: '0', role: 'button', 'aria-expanded': String(open) },
            on: {
              click: () => this.app.dispatch({ type: 'selectException', index: open ? null : i }),
              keydown: (e) => {
                if (e.key === 'Enter') this.app.dispatch({ type: 'selectException', index: open ? null : i });
              },
            },
          },
          icon(open ? 'chevron-down' : 'chevron-right'),
          icon(iconName, 'state-failed'),
          h(
            'a',
            {
              class: 'task-link',
              attrs: { href: '#' },
              on: {
                click: (e) => {
                  e.preventDefault();
                  e.stopPropagation();
                  this.app.showTask(x.taskId);
                },
              },
            },
            `#${x.taskId}`,
          ),
          h('span', { class: 'exception-error' }, x.traceback.error),
        ),
      );
      if (open) li.appendChild(this.traceColumn(x.traceback, 'coroutine', false));
      items.appendChild(li);
    }
    return items;
  }

  /** The URLs that failed in this run: the dashboard's error count, and those of the latest pages. */
  private failedUrls(): HTMLElement[] {
    const count = this.errorCount();
    const failed = this.app.data.pages.filter((p) => p.error !== undefined);
    const title = h('h3', { class: 'section-title failed-urls-title' }, `URLs that failed in this run (${count})`);
    if (count === 0)
      return this.app.data.lastProgress === null
        ? []
        : [title, h('p', { class: 'muted' }, 'No URL has failed in this run.')];
    const list = h('ol', { class: 'failed-url-list' });
    for (const p of failed.slice(-50))
      list.appendChild(
        h(
          'li',
          { class: 'failed-url' },
          icon('error', 'state-failed'),
          ' ',
          h('code', null, p.url),
          ' ',
          h('span', { class: 'exception-error' }, p.error ?? ''),
        ),
      );
    const note =
      failed.length < count
        ? [h('p', { class: 'muted' }, `${failed.length} of them among the pages the panel keeps.`)]
        : [];
    return [title, list, ...note];
  }

  private traceColumn(t: Traceback, kind: 'coroutine' | 'callback', withTitle = true): HTMLElement {
    const frames = this.showMachinery
      ? t.frames
      : t.frames.filter((f) => f.kind === 'coroutine' || f.kind === 'callback' || f.missingInOther === true);
    const hidden = t.frames.length - frames.length;
    const list = h('ol', { class: 'trace-frames' });
    for (const f of frames) {
      const pos = f.position;
      const openable = isOpenable(pos);
      list.appendChild(
        h(
          'li',
          {
            class: `trace-frame kind-${f.kind}${f.missingInOther === true ? ' only-here' : ''}${openable ? ' openable' : ''}`,
            title: pos !== null ? `${pos.file}:${pos.line}:${pos.column}` : '',
            on: openable ? { click: () => this.app.openSource(pos) } : {},
          },
          h('span', { class: 'frame-kind' }, KIND_LABEL[f.kind]),
          h('span', { class: 'frame-name' }, f.name),
          h('span', { class: 'frame-pos' }, pos !== null ? `${baseName(pos.file)}:${pos.line}` : ''),
          f.missingInOther === true
            ? h(
                'span',
                {
                  class: 'only-badge',
                  title:
                    kind === 'coroutine'
                      ? 'The callback trace lacks this frame'
                      : 'The coroutine traceback lacks this frame',
                },
                kind === 'coroutine' ? 'lost in callbacks' : 'only in callbacks',
              )
            : null,
        ),
      );
    }
    return h(
      'div',
      { class: `trace-column trace-${kind}`, attrs: { 'data-trace': kind } },
      withTitle
        ? h(
            'h3',
            null,
            icon(kind === 'coroutine' ? 'debug-stackframe' : 'debug-disconnect'),
            ' ',
            kind === 'coroutine' ? 'Coroutine traceback' : 'Callback trace (stack-ripped)',
          )
        : null,
      h('div', { class: 'trace-error' }, t.error),
      list,
      hidden > 0
        ? h('p', { class: 'muted small' }, `${hidden} loop and Node frame${hidden === 1 ? '' : 's'} hidden`)
        : null,
    );
  }
}
