// The timeline view: the run's tasks as lanes over ticks (or wall time), drawn by what each task
// did, with I/O, timer, exception, cancel and logpoint-hit marks and a cursor at the tick shown.
// A click or drag seeks the run there; a click on a logpoint mark goes to that hit.
//
// Invariants:
// - Virtualised both ways: only lanes in view are drawn, at most one rectangle per pixel per
//   lane (timeline-scale laneRuns), so thousands of tasks redraw in a few milliseconds.
// - Colours are the theme's, and state is also told by shape, so it reads without colour.
// - Task names are drawn as text only (textContent). While "fit", it follows a live run's growth.

import type { TimelineLane, TimelineMark } from '../../protocol/host-protocol';
import type { LogpointMark } from '../../protocol/webview-protocol';
import type { AppContext } from '../app-context';
import { h, icon, iconButton, replace } from '../dom';
import { STATE_LABELS, awaitingText } from '../state/format';
import { logpointMarkTitle } from '../state/logpoint-marks';
import { FIRST_TICK, SEGMENT_KINDS, SEGMENT_LABELS, type SegmentKind } from '../state/timeline-model';
import {
  wholeRun,
  clampWindow,
  laneRuns,
  niceStep,
  panWindow,
  TickScale,
  windowShowing,
  zoomWindow,
  type AxisMode,
  type TickWindow,
} from '../state/timeline-scale';
import { visibleRange } from '../virtual-range';
import { timelineJumps, wakerText } from './timeline-jumps';

export const LANE_HEIGHT = 18;
const AXIS_HEIGHT = 30;
/** How far (CSS px) either side of a logpoint mark a click or a hover still finds it. */
const MARK_SLOP_PX = 4;

type Palette = Record<
  SegmentKind | 'cursor' | 'grid' | 'text' | 'selected' | `mark-${TimelineMarkKind}` | 'mark-logpoint' | 'border',
  string
>;

type TimelineMarkKind = TimelineMark['kind'];
const MARK_KINDS: readonly TimelineMarkKind[] = ['io', 'timer', 'exception', 'cancel'];

interface LabelSlot {
  el: HTMLDivElement;
  taskId: number | null;
}

export class TimelineView {
  readonly element: HTMLElement;
  private readonly filter: HTMLInputElement;
  private readonly axisSelect: HTMLSelectElement;
  private readonly axis: HTMLCanvasElement;
  private readonly lanesCanvas: HTMLCanvasElement;
  private readonly scroller: HTMLDivElement;
  private readonly sticky: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly labels: HTMLDivElement;
  private readonly laneDetail: HTMLDivElement;
  private readonly empty: HTMLDivElement;
  private readonly summary: HTMLSpanElement;
  private readonly pool: LabelSlot[] = [];
  private palette: Palette | null = null;
  private window: TickWindow | null = null;
  private fit = true;
  private mode: AxisMode = 'ticks';
  private filterText = '';
  private dragging = false;
  private detailKey = '';
  /** Milliseconds the last draw took (the perf figure; also on body data-timeline-draw-ms). */
  lastDrawMs = 0;

  constructor(private readonly app: AppContext) {
    this.filter = h('input', {
      class: 'tl-filter',
      attrs: {
        type: 'search',
        placeholder: 'Filter lanes (id, name)',
        'aria-label': 'Filter the timeline lanes',
        spellcheck: 'false',
      },
      on: {
        input: () => {
          this.filterText = this.filter.value;
          this.app.invalidate();
        },
      },
    });
    this.axisSelect = h(
      'select',
      {
        class: 'tl-axis-mode',
        attrs: { 'aria-label': 'Timeline axis' },
        on: {
          change: () => {
            this.mode = this.axisSelect.value === 'time' ? 'time' : 'ticks';
            this.app.invalidate();
          },
        },
      },
      h('option', { attrs: { value: 'ticks' } }, 'Axis: loop ticks'),
      h('option', { attrs: { value: 'time' } }, 'Axis: wall time'),
    );
    this.summary = h('span', { class: 'tl-count', attrs: { 'aria-live': 'polite' } });
    const legend = h('div', { class: 'tl-legend', attrs: { role: 'list', 'aria-label': 'Legend' } });
    for (const k of SEGMENT_KINDS) {
      if (k === 'done') continue;
      legend.appendChild(
        h(
          'span',
          { class: 'tl-legend-item', attrs: { role: 'listitem' } },
          h('span', { class: `tl-swatch tl-${k}`, attrs: { 'aria-hidden': 'true' } }),
          SEGMENT_LABELS[k],
        ),
      );
    }
    const toolbar = h(
      'div',
      { class: 'view-toolbar tl-toolbar' },
      h('span', { class: 'view-title' }, 'Timeline'),
      this.filter,
      this.axisSelect,
      iconButton('zoom-in', 'Zoom in around the viewed tick (+)', () => this.zoom(0.5), { id: 'tl-zoom-in' }),
      iconButton('zoom-out', 'Zoom out (-)', () => this.zoom(2), { id: 'tl-zoom-out' }),
      iconButton(
        'screen-full',
        'Fit the whole run (0)',
        () => {
          this.fit = true;
          this.app.invalidate();
        },
        { id: 'tl-fit' },
      ),
      this.summary,
    );
    this.axis = h('canvas', {
      class: 'tl-axis',
      attrs: { role: 'img', 'aria-label': 'Tick axis with I/O, timer, exception and cancel marks' },
    });
    this.lanesCanvas = h('canvas', { class: 'tl-canvas', attrs: { 'aria-hidden': 'true' } });
    this.labels = h('div', {
      class: 'tl-labels',
      attrs: { role: 'listbox', 'aria-label': 'Task lanes (the task at the viewed tick)' },
    });
    this.sticky = h('div', { class: 'tl-sticky' }, this.labels, this.lanesCanvas);
    this.spacer = h('div', { class: 'tl-spacer' });
    this.scroller = h(
      'div',
      {
        class: 'tl-scroll',
        attrs: {
          tabindex: '0',
          'aria-label': 'Timeline lanes: arrows move the viewed tick and the selected lane, + and - zoom',
        },
      },
      this.sticky,
      this.spacer,
    );
    this.empty = h('div', { class: 'empty-note' });
    this.laneDetail = h('div', { class: 'tl-lane-detail', attrs: { 'aria-live': 'polite' } });
    this.element = h(
      'section',
      { class: 'timeline-view', attrs: { 'aria-label': 'Timeline' } },
      toolbar,
      legend,
      h('div', { class: 'tl-head' }, h('div', { class: 'tl-corner' }, 'Task'), this.axis),
      this.scroller,
      this.empty,
      this.laneDetail,
    );
    this.scroller.addEventListener('scroll', () => this.draw(), { passive: true });
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.scroller.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    for (const c of [this.lanesCanvas, this.axis]) {
      c.addEventListener('pointerdown', (e) => this.onPointer(e, c, true));
      c.addEventListener('pointermove', (e) => {
        if (this.dragging) this.onPointer(e, c, false);
        else if (c === this.lanesCanvas) this.hover(e);
      });
      c.addEventListener('pointerup', () => {
        this.dragging = false;
      });
      c.addEventListener('pointercancel', () => {
        this.dragging = false;
      });
    }
    this.labels.addEventListener('click', (e) => {
      const row = (e.target as Element | null)?.closest('.tl-label[data-task]');
      if (row instanceof HTMLElement && row.dataset.task !== undefined)
        this.app.dispatch({ type: 'selectTask', id: Number(row.dataset.task) });
    });
    new ResizeObserver(() => this.draw()).observe(this.scroller);
    // The theme changes by the body's class: read the colours again.
    new MutationObserver(() => {
      this.palette = null;
      this.draw();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  /** A new run: the whole run in view again. */
  reset(): void {
    this.fit = true;
    this.window = null;
    this.detailKey = '';
  }

  private lanes(): readonly TimelineLane[] {
    return this.app.timeline.visibleLanes(this.filterText);
  }

  private currentWindow(): TickWindow {
    const last = this.app.timeline.lastTick;
    if (this.fit || this.window === null) return wholeRun(last);
    return clampWindow(this.window, last);
  }

  private zoom(factor: number): void {
    const last = this.app.timeline.lastTick;
    this.window = zoomWindow(this.currentWindow(), this.app.shownTick(), factor, last);
    this.fit = this.window.from <= FIRST_TICK && this.window.to >= last + 1;
    this.app.invalidate();
  }

  private canvasWidth(): number {
    return Math.max(10, this.lanesCanvas.clientWidth);
  }

  private scale(): TickScale {
    return new TickScale(this.app.timeline, this.mode, this.currentWindow(), this.canvasWidth());
  }

  private onPointer(e: PointerEvent, canvas: HTMLCanvasElement, down: boolean): void {
    if (!this.app.timeline.hasTicks) return;
    if (down) {
      if (e.button !== 0) return;
      this.dragging = true;
      canvas.setPointerCapture(e.pointerId);
      this.scroller.focus({ preventScroll: true });
    }
    const r = canvas.getBoundingClientRect();
    const tick = this.scale().tickAtX(e.clientX - r.left);
    if (down && canvas === this.lanesCanvas) {
      const lane = this.laneAt(e.clientY - r.top);
      if (lane !== undefined) this.app.dispatch({ type: 'selectTask', id: lane.taskId });
      const mark = this.markAt(e);
      if (mark !== null) {
        // The debugger goes there, and the panel with it (its status says the moment).
        this.dragging = false;
        this.app.goToLogpointHit(mark.hit);
        return;
      }
    }
    this.app.seek(tick);
  }

  private laneAt(canvasY: number): TimelineLane | undefined {
    return this.lanes()[Math.floor((canvasY + this.scroller.scrollTop) / LANE_HEIGHT)];
  }

  /** The logpoint mark under the pointer on the lanes canvas, if any. */
  private markAt(e: PointerEvent): LogpointMark | null {
    const marks = this.app.logpointMarks;
    if (marks.size === 0) return null;
    const r = this.lanesCanvas.getBoundingClientRect();
    const lane = this.laneAt(e.clientY - r.top);
    if (lane === undefined) return null;
    const scale = this.scale();
    const x = e.clientX - r.left;
    return marks.near(
      lane.taskId,
      scale.tickAtX(Math.max(0, x - MARK_SLOP_PX)),
      scale.tickAtX(x + MARK_SLOP_PX),
      scale.tickAtX(x),
    );
  }

  /** Hovering a logpoint mark: its title says the hit (as text: a title is never parsed). */
  private hover(e: PointerEvent): void {
    if (!this.app.timeline.hasTicks) return;
    const mark = this.markAt(e);
    const title = mark === null ? '' : logpointMarkTitle(mark);
    if (this.lanesCanvas.title !== title) this.lanesCanvas.title = title;
    this.lanesCanvas.style.cursor = mark === null ? '' : 'pointer';
  }

  private onWheel(e: WheelEvent): void {
    if (!this.app.timeline.hasTicks) return;
    const w = this.currentWindow();
    const last = this.app.timeline.lastTick;
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      const r = this.lanesCanvas.getBoundingClientRect();
      const at = this.scale().tickAtX(e.clientX - r.left);
      this.window = zoomWindow(w, at, e.deltaY > 0 ? 1.25 : 0.8, last);
      this.fit = false;
      this.app.invalidate();
    } else if (Math.abs(e.deltaX) > Math.abs(e.deltaY) || e.shiftKey) {
      e.preventDefault();
      const px = e.shiftKey ? e.deltaY : e.deltaX;
      this.window = panWindow(w, Math.round((px / this.canvasWidth()) * (w.to - w.from)), last);
      this.fit = false;
      this.app.invalidate();
    }
  }

  private onKey(e: KeyboardEvent): void {
    const last = this.app.timeline.lastTick;
    if (!this.app.timeline.hasTicks) return;
    const lanes = this.lanes();
    const sel = this.app.ui().selectedTask;
    const i = sel === null ? -1 : lanes.findIndex((l) => l.taskId === sel);
    const tick = this.app.shownTick();
    switch (e.key) {
      case 'ArrowLeft':
        this.app.seek(Math.max(FIRST_TICK, tick - (e.shiftKey ? 10 : 1)));
        break;
      case 'ArrowRight':
        this.app.seek(Math.min(last, tick + (e.shiftKey ? 10 : 1)));
        break;
      case 'ArrowDown':
      case 'ArrowUp': {
        const next = lanes[Math.max(0, Math.min(lanes.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))];
        if (next !== undefined) {
          this.app.dispatch({ type: 'selectTask', id: next.taskId });
          this.revealLane(lanes.indexOf(next));
        }
        break;
      }
      case '+':
      case '=':
        this.zoom(0.5);
        break;
      case '-':
        this.zoom(2);
        break;
      case '0':
        this.fit = true;
        this.app.invalidate();
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  private revealLane(index: number): void {
    const top = index * LANE_HEIGHT;
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + LANE_HEIGHT > this.scroller.scrollTop + view) this.scroller.scrollTop = top + LANE_HEIGHT - view;
  }

  render(): void {
    const tl = this.app.timeline;
    const recorded = tl.hasTicks;
    this.empty.hidden = recorded;
    if (!recorded) {
      replace(
        this.empty,
        this.app.data.status.runId === null
          ? 'Run a crawl or a sample (or open a recording) to see its timeline.'
          : this.app.data.status.notRecorded !== undefined
            ? `This run is not recorded: ${this.app.data.status.notRecorded}.`
            : 'This run is not recorded: turn on the coroscope.record setting and run it again to see its timeline.',
      );
    }
    const lanes = this.lanes();
    this.summary.textContent = recorded
      ? `${lanes.length.toLocaleString('en-US')} lane${lanes.length === 1 ? '' : 's'} · ${tl.lastTick.toLocaleString('en-US')} ticks`
      : '';
    // The viewed tick stays in the window when zoomed.
    if (!this.fit && this.window !== null)
      this.window = windowShowing(clampWindow(this.window, tl.lastTick), this.app.shownTick(), tl.lastTick);
    this.draw();
    this.renderLaneDetail();
  }

  private colours(): Palette {
    if (this.palette !== null) return this.palette;
    const style = getComputedStyle(this.element);
    const v = (name: string, fallback: string): string => {
      const x = style.getPropertyValue(name).trim();
      return x !== '' ? x : fallback;
    };
    const p = {} as Palette;
    for (const k of SEGMENT_KINDS) p[k] = v(`--tl-${k}`, '#888');
    for (const m of MARK_KINDS) p[`mark-${m}`] = v(`--tl-mark-${m}`, '#888');
    p['mark-logpoint'] = v('--tl-mark-logpoint', '#888');
    p.cursor = v('--tl-cursor', '#f00');
    p.grid = v('--tl-grid', 'rgba(128,128,128,0.3)');
    p.text = v('--tl-text', '#888');
    p.selected = v('--tl-selected', 'rgba(128,128,128,0.2)');
    p.border = v('--tl-border', 'transparent');
    this.palette = p;
    return p;
  }

  /** Sizes a canvas to its CSS box at the device's pixel ratio; returns its 2D context in CSS pixels. */
  private prepare(c: HTMLCanvasElement, cssHeight: number): CanvasRenderingContext2D | null {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(10, c.clientWidth);
    const hgt = Math.max(1, cssHeight);
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(hgt * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(hgt * dpr);
    }
    c.style.height = `${hgt}px`;
    const ctx = c.getContext('2d');
    if (ctx === null) return null;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    return ctx;
  }

  private draw(): void {
    if (this.element.hidden) return;
    const t0 = performance.now();
    const tl = this.app.timeline;
    const lanes = this.lanes();
    const viewH = Math.max(LANE_HEIGHT, this.scroller.clientHeight);
    const total = lanes.length * LANE_HEIGHT;
    this.sticky.style.height = `${Math.min(viewH, Math.max(total, LANE_HEIGHT))}px`;
    this.spacer.style.height = `${Math.max(0, total - viewH)}px`;
    if (!tl.hasTicks) {
      this.prepare(this.axis, AXIS_HEIGHT);
      this.prepare(this.lanesCanvas, LANE_HEIGHT);
      for (const s of this.pool) s.el.hidden = true;
      return;
    }
    const scale = this.scale();
    const p = this.colours();
    const shown = this.app.shownTick();
    const cursorX = Math.floor(scale.xOf(shown) + Math.max(1, scale.xOf(shown + 1) - scale.xOf(shown)) / 2) + 0.5;
    this.drawAxis(scale, p, cursorX);
    const top = this.scroller.scrollTop;
    const range = visibleRange(top, viewH, LANE_HEIGHT, lanes.length, 2);
    // The labels are elements, not pixels: drawn even where the canvas has no 2D context.
    this.drawLabels(lanes, range.start, range.end, top, shown);
    const ctx = this.prepare(this.lanesCanvas, Math.min(viewH, Math.max(total, LANE_HEIGHT)));
    if (ctx === null) return;
    const sel = this.app.ui().selectedTask;
    const width = scale.width;
    const present = tl.lastTick;
    for (let i = range.start; i < range.end; i++) {
      const lane = lanes[i]!;
      const y = i * LANE_HEIGHT - top;
      if (lane.taskId === sel) {
        ctx.fillStyle = p.selected;
        ctx.fillRect(0, y, width, LANE_HEIGHT);
      }
      for (const run of laneRuns(lane, scale, present)) {
        const full =
          run.kind === 'running' || run.kind === 'scheduled' || run.kind === 'failed' || run.kind === 'cancelled';
        ctx.fillStyle = p[run.kind];
        if (full) ctx.fillRect(run.x0, y + 2, run.x1 - run.x0, LANE_HEIGHT - 4);
        else ctx.fillRect(run.x0, y + 5, run.x1 - run.x0, LANE_HEIGHT - 10);
      }
      if (lane.endTick !== null && lane.endTick >= scale.window.from && lane.endTick <= scale.window.to) {
        const x = Math.floor(scale.xOf(lane.endTick));
        ctx.fillStyle = lane.cancelledTick !== null ? p.cancelled : p.text;
        ctx.fillRect(x - 1, y + 3, 2, LANE_HEIGHT - 6);
      }
    }
    // Marks that belong to a task, on its lane: a small triangle at its top.
    const rowOf = new Map<number, number>();
    for (let i = range.start; i < range.end; i++) rowOf.set(lanes[i]!.taskId, i);
    let lastMarkX = -1;
    for (const m of tl.marksIn(scale.window.from, scale.window.to)) {
      if (m.taskId === undefined) continue;
      const row = rowOf.get(m.taskId);
      if (row === undefined) continue;
      const x = Math.floor(scale.xOf(m.tick)) + 0.5;
      if (x === lastMarkX) continue;
      lastMarkX = x;
      const y = row * LANE_HEIGHT - top;
      ctx.fillStyle = p[`mark-${m.kind}`];
      ctx.beginPath();
      ctx.moveTo(x - 3, y);
      ctx.lineTo(x + 3, y);
      ctx.lineTo(x, y + 4);
      ctx.fill();
    }
    // Logpoint hits on their task's lane: a diamond at its foot (as VS Code draws a logpoint), one per pixel.
    if (this.app.logpointMarks.size > 0) {
      ctx.fillStyle = p['mark-logpoint'];
      ctx.strokeStyle = p.border;
      for (let i = range.start; i < range.end; i++) {
        const lane = lanes[i]!;
        const y = i * LANE_HEIGHT - top + LANE_HEIGHT - 5;
        let lastX = Number.NaN;
        for (const m of this.app.logpointMarks.inLane(lane.taskId, scale.window.from, scale.window.to)) {
          const x = Math.floor(scale.xOf(m.tick) + Math.max(1, scale.xOf(m.tick + 1) - scale.xOf(m.tick)) / 2) + 0.5;
          if (x === lastX) continue;
          lastX = x;
          ctx.beginPath();
          ctx.moveTo(x, y - 4);
          ctx.lineTo(x + 4, y);
          ctx.lineTo(x, y + 4);
          ctx.lineTo(x - 4, y);
          ctx.closePath();
          ctx.fill();
          ctx.stroke();
        }
      }
    }
    ctx.strokeStyle = p.cursor;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(cursorX, 0);
    ctx.lineTo(cursorX, viewH);
    ctx.stroke();
    this.lastDrawMs = performance.now() - t0;
    document.body.dataset.timelineDrawMs = this.lastDrawMs.toFixed(1);
    document.body.dataset.timelineLanes = String(lanes.length);
  }

  private drawAxis(scale: TickScale, p: Palette, cursorX: number): void {
    const ctx = this.prepare(this.axis, AXIS_HEIGHT);
    if (ctx === null) return;
    const tl = this.app.timeline;
    const { from, to } = scale.window;
    ctx.fillStyle = p.text;
    ctx.strokeStyle = p.grid;
    ctx.font = '10px sans-serif';
    ctx.textBaseline = 'top';
    // About one label per 90 px, at round numbers of ticks (or ms on the time axis).
    const labels = Math.max(1, Math.floor(scale.width / 90));
    if (this.mode === 'ticks') {
      const step = niceStep((to - from) / labels);
      for (let t = Math.ceil(from / step) * step; t < to; t += step) {
        const x = Math.floor(scale.xOf(t)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, 12);
        ctx.lineTo(x, AXIS_HEIGHT);
        ctx.stroke();
        ctx.fillText(String(t), x + 2, 1);
      }
    } else {
      const a = tl.msAt(from);
      const b = tl.msAt(to);
      const step = niceStep((b - a) / labels);
      for (let ms = Math.ceil(a / step) * step; ms < b; ms += step) {
        const x = Math.floor(((ms - a) / Math.max(1e-9, b - a)) * scale.width) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, 12);
        ctx.lineTo(x, AXIS_HEIGHT);
        ctx.stroke();
        ctx.fillText(
          ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${Math.round(ms)} ms`,
          x + 2,
          1,
        );
      }
    }
    // Every mark of the window on the axis, one per pixel and kind.
    const seen = new Set<string>();
    for (const m of tl.marksIn(from, to)) {
      const x = Math.floor(scale.xOf(m.tick));
      const k = `${x}|${m.kind}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const row = MARK_KINDS.indexOf(m.kind);
      ctx.fillStyle = p[`mark-${m.kind}`];
      ctx.fillRect(x, 14 + row * 4, 1, 4);
    }
    ctx.strokeStyle = p.cursor;
    ctx.beginPath();
    ctx.moveTo(cursorX, 0);
    ctx.lineTo(cursorX, AXIS_HEIGHT);
    ctx.stroke();
  }

  private drawLabels(lanes: readonly TimelineLane[], start: number, end: number, top: number, tick: number): void {
    const need = end - start;
    while (this.pool.length < need) {
      const el = h('div', { class: 'tl-label', attrs: { role: 'option' } });
      this.labels.appendChild(el);
      this.pool.push({ el, taskId: null });
    }
    const sel = this.app.ui().selectedTask;
    for (let i = 0; i < this.pool.length; i++) {
      const slot = this.pool[i]!;
      if (i >= need) {
        slot.el.hidden = true;
        continue;
      }
      const lane = lanes[start + i]!;
      slot.el.hidden = false;
      slot.el.style.transform = `translateY(${(start + i) * LANE_HEIGHT - top}px)`;
      const what = this.describeAt(lane, tick);
      if (slot.taskId !== lane.taskId || slot.el.dataset.what !== what) {
        slot.taskId = lane.taskId;
        slot.el.dataset.task = String(lane.taskId);
        slot.el.dataset.what = what;
        slot.el.textContent = `#${lane.taskId} ${lane.name}`;
        slot.el.title = `#${lane.taskId} ${lane.name}: ${what}`;
        slot.el.setAttribute('aria-label', `Task #${lane.taskId} ${lane.name}, at tick ${tick}: ${what}`);
      }
      const selected = lane.taskId === sel;
      slot.el.classList.toggle('selected', selected);
      slot.el.setAttribute('aria-selected', String(selected));
    }
  }

  /** What the task does at `tick`, in words. */
  private describeAt(lane: TimelineLane, tick: number): string {
    const at = this.app.timeline.stateAt(lane, tick);
    if (at.kind === 'notCreated') return `not created yet (created at tick ${lane.createdTick})`;
    if (at.kind === 'ended') return `${STATE_LABELS[at.state].toLowerCase()} (ended at tick ${lane.endTick ?? '?'})`;
    const s = at.segment;
    if (s.state === 'suspended')
      return `suspended${s.awaiting !== undefined ? `, awaiting ${awaitingText({ kind: s.awaiting, detail: s.awaitDetail ?? '' })}` : ''}${s.wokenTick !== undefined ? ` (woken at tick ${s.wokenTick} by ${wakerText(s.wokenBy ?? null)})` : ''}`;
    return STATE_LABELS[s.state].toLowerCase();
  }

  private renderLaneDetail(): void {
    const sel = this.app.ui().selectedTask;
    const lane = sel !== null ? this.app.timeline.lane(sel) : undefined;
    const tick = this.app.shownTick();
    const key = `${sel}|${tick}|${this.app.timeline.version}|${this.app.logpointMarks.version}`;
    if (key === this.detailKey) return;
    this.detailKey = key;
    if (lane === undefined) {
      replace(
        this.laneDetail,
        h(
          'span',
          { class: 'muted' },
          'Select a lane (click it, or the arrows) to see what its task did at the viewed tick and where it came from.',
        ),
      );
      return;
    }
    const showStack = iconButton(
      'debug-stackframe',
      `Show task #${lane.taskId}'s coroutine stack at tick ${tick}`,
      () => this.app.showTask(lane.taskId),
      { text: 'Show stack', id: 'tl-show-stack' },
    );
    // The lane's next logpoint hit, for the keyboard (the marks themselves are on the canvas).
    const next = this.app.logpointMarks.nextAfter(lane.taskId, tick);
    const nextHit =
      next === null
        ? null
        : iconButton(
            'debug-breakpoint-log',
            `${logpointMarkTitle(next).split('\n')[0]}: go there`,
            () => this.app.goToLogpointHit(next.hit),
            { text: `Logpoint hit at tick ${next.tick}`, id: 'tl-next-logpoint-hit' },
          );
    replace(
      this.laneDetail,
      icon('symbol-class'),
      h('strong', { class: 'tl-detail-task' }, `#${lane.taskId} ${lane.name}`),
      h('span', { class: 'tl-detail-what' }, ` at tick ${tick}: ${this.describeAt(lane, tick)}`),
      timelineJumps(this.app, lane.taskId),
      showStack,
      ...(nextHit !== null ? [nextHit] : []),
    );
  }
}
