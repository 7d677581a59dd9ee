// The comparison of approaches ("Coroscope: Compare Approaches…") on the dashboard: for each
// approach, in the article's order, a bar of the seconds it took to fetch the pages, and a
// bar of the memory one concurrent fetch costs (processes, threads and the event-loop
// approaches; blocking and the busy loop run one fetch at a time and have none). Bars are
// scaled to the largest value of their chart; the figures are printed beside them.
//
// Everything shown is text (approach names come from the host): no markup is built from it.

import type { ComparisonRowInfo } from '../../protocol/host-protocol';
import type { Comparison } from '../../protocol/webview-protocol';
import { h } from '../dom';

const LABELS: Readonly<Record<string, string>> = {
  blocking: 'blocking (one at a time)',
  processes: 'processes (pool)',
  threads: 'threads (pool)',
  'busy-nonblocking': 'busy non-blocking',
  callbacks: 'callbacks (select loop)',
  generators: 'generator coroutines',
  runtime: 'runtime (tasks + client)',
};

export function approachLabel(approach: string): string {
  return LABELS[approach] ?? approach;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function formatSeconds(s: number): string {
  return `${s.toFixed(s < 10 ? 3 : 1)} s`;
}

/** One bar chart: a row per (label, value), the bar's width relative to the largest value. */
function bars(
  kind: string,
  rows: ReadonlyArray<{ approach: string; value: number; text: string; note?: string }>,
): HTMLElement {
  const max = Math.max(...rows.map((r) => r.value), Number.MIN_VALUE);
  const list = h('div', { class: `bars comparison-bars`, attrs: { 'data-chart': kind } });
  for (const r of rows) {
    const bar = h('span', { class: 'bar' });
    bar.style.width = `${Math.max(1, (r.value / max) * 100)}%`;
    list.appendChild(
      h(
        'div',
        { class: 'bar-row', attrs: { 'data-approach': r.approach }, title: r.note ?? '' },
        h('span', { class: 'bar-label' }, approachLabel(r.approach)),
        h('span', { class: 'bar-track' }, bar),
        h('span', { class: 'bar-count' }, r.text),
      ),
    );
  }
  return list;
}

function secondsNote(r: ComparisonRowInfo): string {
  const parts = [`${r.concurrency} in flight`, `${r.pagesPerSecond.toFixed(1)} pages/s`];
  if (r.startupSeconds !== undefined) parts.push(`+${r.startupSeconds.toFixed(2)} s to start the pool`);
  if (r.wastedTries !== undefined) parts.push(`${r.wastedTries} wasted tries`);
  if (r.failures > 0) parts.push(`${r.failures} failed`);
  return parts.join(' · ');
}

/** The comparison's box for the dashboard. */
export function comparisonBox(c: Comparison): HTMLElement {
  const box = h(
    'div',
    { class: 'panel-box comparison-box', attrs: { 'data-state': c.state } },
    h('h3', null, `Approaches compared: ${c.pages.toLocaleString('en-US')} pages, ${c.latencyMs} ms latency each`),
  );
  if (c.state === 'running') {
    box.appendChild(h('p', { class: 'muted' }, 'Measuring: each approach fetches the pages of a demo site in turn…'));
    return box;
  }
  if (c.state === 'failed') {
    box.appendChild(
      h('p', { class: 'muted comparison-error' }, `The comparison failed: ${c.error ?? 'unknown error'}`),
    );
    return box;
  }
  const blocking = c.rows.find((r) => r.approach === 'blocking');
  box.appendChild(h('h4', null, 'Seconds to fetch them all (shorter is better)'));
  box.appendChild(
    bars(
      'seconds',
      c.rows.map((r) => ({
        approach: r.approach,
        value: r.seconds,
        text: `${formatSeconds(r.seconds)}${blocking !== undefined && r.seconds > 0 ? ` · ${(blocking.seconds / r.seconds).toFixed(1)}×` : ''}`,
        note: secondsNote(r),
      })),
    ),
  );
  const withMemory = c.rows.filter(
    (r): r is ComparisonRowInfo & { memoryPerFetchBytes: number } => r.memoryPerFetchBytes !== undefined,
  );
  box.appendChild(h('h4', null, 'Memory per concurrent fetch (smaller is better)'));
  if (withMemory.length === 0) box.appendChild(h('p', { class: 'muted' }, 'Not measured.'));
  else
    box.appendChild(
      bars(
        'memory',
        withMemory.map((r) => ({
          approach: r.approach,
          value: r.memoryPerFetchBytes,
          text: formatBytes(r.memoryPerFetchBytes),
        })),
      ),
    );
  return box;
}
