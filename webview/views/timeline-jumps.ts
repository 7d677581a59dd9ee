// The jumps from a task to the moments that explain it, shared by the task detail (tasks
// view) and the timeline's lane detail: "Who woke this?" (the tick the future it awaits at
// the viewed tick was completed), "Created here" (the tick it was created) and "Cancelled by"
// (the tick its cancellation was asked for). Each seeks the run to that tick; a jump that the
// timeline cannot answer (the task not recorded, no wake-up yet) is not offered.

import { cancelOriginLabel } from '../../protocol/cancel-origin-label';
import type { Waker } from '../../protocol/host-protocol';
import type { AppContext } from '../app-context';
import { h, iconButton } from '../dom';

/** Who completed what a task awaited, in words. */
export function wakerText(by: Waker | null): string {
  if (typeof by === 'number') return `task #${by}`;
  switch (by) {
    case 'io':
      return 'I/O (a socket became ready)';
    case 'timer':
      return 'a timer';
    case 'callback':
      return 'a callback';
    case null:
      return 'something the recording did not name';
  }
}

/** The jump buttons for `taskId` at the viewed tick, or null when the timeline does not know the task. */
export function timelineJumps(app: AppContext, taskId: number): HTMLElement | null {
  const lane = app.timeline.lane(taskId);
  if (lane === undefined) return null;
  const tick = app.shownTick();
  const j = app.timeline.jumps(lane, tick);
  const box = h('div', {
    class: 'timeline-jumps',
    attrs: { role: 'group', 'aria-label': `Moments of task #${taskId}` },
  });
  if (j.woken !== null) {
    const by = wakerText(j.woken.by);
    const b = iconButton(
      'debug-step-back',
      `Who woke this? Go to tick ${j.woken.tick}, where ${by} completed what task #${taskId} awaits`,
      () => app.seek(j.woken!.tick),
      { text: 'Who woke this?', id: 'jump-woken' },
    );
    b.dataset.tick = String(j.woken.tick);
    box.appendChild(b);
  }
  const created = iconButton(
    'symbol-event',
    `Created here: go to tick ${j.created}, where task #${taskId} was created`,
    () => app.seek(j.created),
    { text: 'Created here', id: 'jump-created' },
  );
  created.dataset.tick = String(j.created);
  box.appendChild(created);
  if (j.cancelled !== null) {
    const who = lane.cancelledBy !== undefined ? cancelOriginLabel(lane.cancelledBy, (id) => `task #${id}`) : 'someone';
    const c = iconButton(
      'circle-slash',
      `Cancelled by ${who}: go to tick ${j.cancelled.tick}`,
      () => app.seek(j.cancelled!.tick),
      { text: 'Cancelled by', id: 'jump-cancelled' },
    );
    c.dataset.tick = String(j.cancelled.tick);
    box.appendChild(c);
  }
  return box.childElementCount > 0 ? box : h('div', { class: 'timeline-jumps' });
}
