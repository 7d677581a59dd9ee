// Synthetic timelines (the host protocol's Timeline) for the webview's timeline tests: a
// crawl task and `workers` workers, each alternating running, awaiting a socket (woken by
// I/O) and awaiting the queue (woken by the crawl task), over ticks 1 .. `ticks`.

import type { Timeline, TimelineLane, TimelineMark, TimelineSegment } from '../../protocol/host-protocol';

export function makeTimeline(workers: number, ticks: number, stepTicks = 7): Timeline {
  const lanes: TimelineLane[] = [
    {
      taskId: 1,
      name: 'crawl',
      parentId: null,
      createdTick: 0,
      segmentsFrom: 0,
      endTick: null,
      endState: null,
      segments: [
        { fromTick: 1, toTick: 1, state: 'running' },
        { fromTick: 1, toTick: ticks, state: 'suspended', awaiting: 'queue.join', open: true },
      ],
    },
  ];
  const marks: TimelineMark[] = [];
  for (let w = 0; w < workers; w++) {
    const segments: TimelineSegment[] = [{ fromTick: 1, toTick: 1 + (w % stepTicks), state: 'scheduled' }];
    let t = 2 + (w % stepTicks);
    let io = true;
    while (t + 2 < ticks) {
      const woken = Math.min(ticks - 1, t + 1 + ((w * 3 + t) % (stepTicks * 2)));
      segments.push({ fromTick: t, toTick: t, state: 'running' });
      segments.push({
        fromTick: t,
        toTick: woken,
        state: 'suspended',
        awaiting: io ? 'socket.read' : 'queue.get',
        wokenTick: woken,
        wokenBy: io ? 'io' : 1,
      });
      if (io) marks.push({ tick: woken, kind: 'io', taskId: w + 2, detail: 'data 300 bytes' });
      t = woken + 1;
      io = !io;
    }
    lanes.push({
      taskId: w + 2,
      name: `worker-${w + 1}`,
      parentId: 1,
      createdTick: 1,
      segmentsFrom: 0,
      endTick: null,
      endState: null,
      segments,
    });
  }
  marks.sort((a, b) => a.tick - b.tick);
  return {
    runId: 1,
    ticks,
    sinceTick: 0,
    live: false,
    lanes,
    marks,
    tickTimes: Array.from({ length: ticks }, (_, i) => i * 2),
  };
}
