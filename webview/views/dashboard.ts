// The crawl dashboard: pages done, rate, queue, in flight, errors and the rest as cards; the
// crawl rate over time as a chart (SVG, smoothed over a few progress points); errors by kind
// as bars; and the pages the crawler finished, with their titles when the host reports them
// (titles come from crawled pages: shown as text, never as markup). The comparison of
// approaches, when one was asked for, comes first (views/comparison.ts). At a past tick, the
// numbers and the time are that tick's (state/moment-view.ts), never the live ones.

import type { CrawledPage, CrawlProgress } from '../../protocol/host-protocol';
import type { ProgressPoint } from '../../protocol/webview-protocol';
import type { AppContext } from '../app-context';
import { h, replace, svg, svgText } from '../dom';
import { rateChart } from '../state/chart';
import { formatCount, formatRate } from '../state/format';
import { dashboardSeconds, pagesUpTo, pointsUpTo } from '../state/moment-view';
import { comparisonBox } from './comparison';

function elapsedText(seconds: number): string {
  return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
}

const CHART_W = 560;
const CHART_H = 160;
const PAGES_SHOWN = 500;

export class DashboardView {
  readonly element: HTMLElement;

  /** The pages table is rebuilt only when the list changed (it can hold hundreds of rows). */
  private pagesBox: HTMLElement | null = null;
  private pagesKey = '';

  constructor(private readonly app: AppContext) {
    this.element = h('section', { class: 'dashboard', attrs: { 'aria-label': 'Crawl dashboard' } });
  }

  render(): void {
    const p: CrawlProgress | null = this.app.shownProgress();
    const comparison = this.app.data.comparison;
    if (p === null) {
      const why =
        this.app.data.status.runId === null
          ? 'Run a crawl to see its dashboard.'
          : this.app.data.lastProgress !== null
            ? `The crawl's numbers at tick ${this.app.shownTick()} are on their way.`
            : 'This run is not a crawl: no crawl numbers.';
      const placeholder = h('div', { class: 'placeholder' }, h('p', null, why));
      if (comparison !== null) replace(this.element, comparisonBox(comparison), placeholder);
      else replace(this.element, placeholder);
      return;
    }
    const card = (label: string, value: string, cls = ''): HTMLElement =>
      h(
        'div',
        { class: `card ${cls}` },
        h('div', { class: 'card-value' }, value),
        h('div', { class: 'card-label' }, label),
      );
    const points = this.shownPoints();
    const lastRate = points.length > 0 ? points[points.length - 1]!.rate : p.rate;
    const cards = h(
      'div',
      { class: 'cards' },
      card('pages done', formatCount(p.done), 'card-done'),
      card('rate now', formatRate(this.app.data.status.phase === 'running' || this.app.viewingPast() ? lastRate : 0)),
      card('average rate', formatRate(p.rate)),
      card('queued', formatCount(p.queued)),
      card('in flight', formatCount(p.inFlight)),
      card('errors', formatCount(p.errors), p.errors > 0 ? 'card-errors' : ''),
      card('seen', formatCount(p.seen)),
      card('excluded', formatCount(p.excluded)),
      card('elapsed', elapsedText(dashboardSeconds(this.app.moment(), p, this.app.timeline))),
    );
    replace(
      this.element,
      comparison !== null ? comparisonBox(comparison) : null,
      cards,
      this.chart(),
      this.errorsByKind(p),
      this.pages(),
    );
  }

  /** The chart's points up to the viewed moment (all of them in the present). */
  private shownPoints(): readonly ProgressPoint[] {
    return pointsUpTo(this.app.moment(), this.app.data.progress, this.app.timeline);
  }

  private chart(): HTMLElement {
    const points = this.shownPoints();
    const geo = rateChart(points, CHART_W, CHART_H);
    const root = svg('svg', {
      class: 'chart',
      viewBox: `-48 -10 ${CHART_W + 60} ${CHART_H + 34}`,
      role: 'img',
      'aria-label': `Crawl rate over time, up to ${formatRate(geo.yMax)}`,
    });
    for (const v of geo.yTicks) {
      const y = CHART_H - (v / geo.yMax) * CHART_H;
      root.appendChild(svg('line', { class: 'grid-line', x1: 0, x2: CHART_W, y1: y, y2: y }));
      root.appendChild(svgText(formatRate(v), { class: 'axis-label', x: -6, y: y + 4, 'text-anchor': 'end' }));
    }
    root.appendChild(svgText('0 s', { class: 'axis-label', x: 0, y: CHART_H + 18 }));
    root.appendChild(
      svgText(`${geo.tMax.toFixed(geo.tMax < 10 ? 1 : 0)} s`, {
        class: 'axis-label',
        x: CHART_W,
        y: CHART_H + 18,
        'text-anchor': 'end',
      }),
    );
    if (points.length > 1) {
      root.appendChild(svg('path', { class: 'chart-area', d: geo.area }));
      root.appendChild(svg('path', { class: 'chart-line', d: geo.path }));
    }
    return h(
      'div',
      { class: 'panel-box chart-box' },
      h('h3', null, 'Pages per second'),
      points.length > 1 ? root : h('p', { class: 'muted' }, 'The chart fills in as the crawl reports progress.'),
    );
  }

  private errorsByKind(p: CrawlProgress): HTMLElement {
    const entries = Object.entries(p.errorsByKind).sort((a, b) => b[1] - a[1]);
    const box = h('div', { class: 'panel-box' }, h('h3', null, 'Errors by kind'));
    if (entries.length === 0) {
      box.appendChild(h('p', { class: 'muted' }, 'No errors.'));
      return box;
    }
    const max = Math.max(...entries.map((e) => e[1]));
    const list = h('div', { class: 'bars' });
    for (const [kind, n] of entries) {
      const bar = h('span', { class: 'bar' });
      bar.style.width = `${Math.max(2, (n / max) * 100)}%`;
      list.appendChild(
        h(
          'div',
          { class: 'bar-row' },
          h('span', { class: 'bar-label' }, kind),
          h('span', { class: 'bar-track' }, bar),
          h('span', { class: 'bar-count' }, formatCount(n)),
        ),
      );
    }
    box.appendChild(list);
    return box;
  }

  private pages(): HTMLElement {
    const pages = this.shownPages();
    const last = pages[pages.length - 1];
    const key = `${pages.length}|${last?.url ?? ''}`;
    if (this.pagesBox !== null && key === this.pagesKey) return this.pagesBox;
    this.pagesKey = key;
    this.pagesBox = this.buildPages(pages);
    return this.pagesBox;
  }

  /** The pages finished by the moment shown (a past tick's: not those finished after it). */
  private shownPages(): readonly CrawledPage[] {
    return pagesUpTo(
      this.app.moment(),
      this.app.data.pages,
      this.app.data.lastProgress?.done ?? null,
      this.app.shownProgress(),
    );
  }

  private buildPages(pages: readonly CrawledPage[]): HTMLElement {
    const box = h(
      'div',
      { class: 'panel-box pages-box' },
      h('h3', null, `Pages crawled${pages.length > 0 ? ` (latest ${Math.min(pages.length, PAGES_SHOWN)})` : ''}`),
    );
    if (pages.length === 0) {
      box.appendChild(
        h(
          'p',
          { class: 'muted' },
          this.app.data.status.runId === null
            ? 'No crawl yet.'
            : 'No page finished yet (or the runtime host does not report pages).',
        ),
      );
      return box;
    }
    const table = h(
      'table',
      { class: 'pages-table' },
      h('thead', null, h('tr', null, h('th', null, 'Status'), h('th', null, 'Title'), h('th', null, 'URL'))),
    );
    const body = h('tbody');
    for (const page of pages.slice(-PAGES_SHOWN).reverse()) {
      body.appendChild(
        h(
          'tr',
          { class: page.error !== undefined ? 'page-error' : '' },
          h('td', { class: 'page-status' }, page.status === null ? '—' : String(page.status)),
          h('td', { class: 'page-title', title: page.title ?? page.error ?? '' }, page.title ?? page.error ?? ''),
          h('td', { class: 'page-url', title: page.url }, page.url),
        ),
      );
    }
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }
}
