// The scrubber: a bar under the panel's header, in every view, that moves the run's viewed
// moment. Drag or click it, or use the keys (arrows: a tick, Shift+arrows: ten, Page Up/Down:
// a twentieth of the run, Home/End: the first and the last tick, Escape: back to the
// present). It says which moment every view shows, in the words of state/moment-view.ts:
// "Viewing tick N of M (past) · Back to present", the present tick, or an opened recording's
// "Tick N of M" (no present: no way back to it). A slider for assistive technology.
//
// Invariants: the thumb shows the tick last asked for at once (the host's answer follows,
// through the seek queue); it is hidden while the run has no timeline (not recorded).

import type { AppContext } from '../app-context';
import { h, icon, iconButton } from '../dom';
import { scrubberText } from '../state/moment-view';
import { FIRST_TICK } from '../state/timeline-model';
import { shareOfTick, tickAtShare } from '../state/timeline-scale';

export class Scrubber {
  readonly element: HTMLElement;
  private readonly track: HTMLDivElement;
  private readonly fill: HTMLDivElement;
  private readonly thumb: HTMLDivElement;
  private readonly label: HTMLSpanElement;
  private readonly back: HTMLButtonElement;
  private dragging = false;
  private key = '';

  constructor(private readonly app: AppContext) {
    this.fill = h('div', { class: 'scrubber-fill' });
    this.thumb = h('div', { class: 'scrubber-thumb' });
    this.track = h(
      'div',
      {
        class: 'scrubber-track',
        attrs: {
          role: 'slider',
          tabindex: '0',
          'aria-label': 'Viewed tick of the run',
          'aria-orientation': 'horizontal',
        },
      },
      this.fill,
      this.thumb,
    );
    this.label = h('span', { class: 'scrubber-label', attrs: { 'aria-live': 'polite' } });
    this.back = iconButton(
      'debug-step-over',
      'Back to the present: every view shows the run as it is now',
      () => app.seek(null),
      { text: 'Back to present', id: 'back-to-present' },
    );
    this.element = h(
      'div',
      { class: 'scrubber', attrs: { role: 'group', 'aria-label': 'Time travel' } },
      icon('history', 'scrubber-icon'),
      this.track,
      this.label,
      this.back,
    );
    this.track.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      this.dragging = true;
      this.track.setPointerCapture(e.pointerId);
      this.track.focus();
      this.seekAtX(e.clientX);
    });
    this.track.addEventListener('pointermove', (e) => {
      if (this.dragging) this.seekAtX(e.clientX);
    });
    const stop = (): void => {
      this.dragging = false;
    };
    this.track.addEventListener('pointerup', stop);
    this.track.addEventListener('pointercancel', stop);
    this.track.addEventListener('keydown', (e) => this.onKey(e));
  }

  private seekAtX(clientX: number): void {
    const last = this.app.timeline.lastTick;
    if (!this.app.timeline.hasTicks) return;
    const r = this.track.getBoundingClientRect();
    const share = r.width > 0 ? Math.min(1, Math.max(0, (clientX - r.left) / r.width)) : 0;
    this.app.seek(tickAtShare(share, last));
  }

  private onKey(e: KeyboardEvent): void {
    const last = this.app.timeline.lastTick;
    if (!this.app.timeline.hasTicks) return;
    const now = this.app.shownTick();
    const page = Math.max(1, Math.round(last / 20));
    let next: number | null;
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowDown':
        next = now - (e.shiftKey ? 10 : 1);
        break;
      case 'ArrowRight':
      case 'ArrowUp':
        next = now + (e.shiftKey ? 10 : 1);
        break;
      case 'PageDown':
        next = now - page;
        break;
      case 'PageUp':
        next = now + page;
        break;
      case 'Home':
        next = FIRST_TICK;
        break;
      case 'End':
        next = last;
        break;
      case 'Escape':
        next = null;
        break;
      default:
        return;
    }
    e.preventDefault();
    this.app.seek(next === null ? null : Math.max(FIRST_TICK, Math.min(last, next)));
  }

  render(): void {
    const tl = this.app.timeline;
    this.element.hidden = !tl.hasTicks;
    if (this.element.hidden) return;
    const m = this.app.moment();
    const words = scrubberText(m, tl);
    const key = `${m.kind}|${m.tick}|${m.lastTick}|${m.onLine}|${words.label}`;
    if (key === this.key) return;
    this.key = key;
    const share = shareOfTick(m.tick, m.lastTick);
    this.fill.style.width = `${(share * 100).toFixed(3)}%`;
    this.thumb.style.left = `${(share * 100).toFixed(3)}%`;
    this.element.classList.toggle('past', m.kind !== 'present');
    this.label.textContent = words.label;
    this.track.setAttribute('aria-valuemin', String(FIRST_TICK));
    this.track.setAttribute('aria-valuemax', String(m.lastTick));
    this.track.setAttribute('aria-valuenow', String(m.tick));
    this.track.setAttribute('aria-valuetext', words.valueText);
    // An opened recording has no present to go back to.
    this.back.hidden = !words.offersPresent;
  }
}
