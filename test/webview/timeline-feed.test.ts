import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Timeline } from '../../protocol/host-protocol';
import type { RunStatus } from '../../protocol/webview-protocol';
import { TimelineModel } from '../../webview/state/timeline-model';
import { TimelineFeed, type TimelineSource } from '../../webview/timeline-feed';

const status = (phase: RunStatus['phase'], runId: number | null = 1): RunStatus => ({
  phase,
  runId,
  title: 't',
  detail: '',
  tick: 0,
});

function timeline(ticks: number, since: number, live: boolean): Timeline {
  return {
    runId: 1,
    ticks,
    sinceTick: since,
    live,
    lanes: [
      {
        taskId: 1,
        name: 'crawl',
        parentId: null,
        createdTick: 0,
        segmentsFrom: 0,
        endTick: null,
        endState: null,
        segments: [{ fromTick: 1, toTick: ticks, state: 'suspended', awaiting: 'queue.join', open: live }],
      },
    ],
    marks: [],
    tickTimes: [],
  };
}

/** A source answering from a script of timelines (or errors), recording what was asked. */
function source(answers: Array<Timeline | Error>): { src: TimelineSource; asked: Array<number | undefined> } {
  const asked: Array<number | undefined> = [];
  const src: TimelineSource = {
    request: async (method: 'timeline', params: { sinceTick?: number }) => {
      assert.equal(method, 'timeline');
      asked.push(params.sinceTick);
      const a = answers.shift();
      if (a === undefined) return new Promise(() => undefined); // never answers: polling has gone on too long
      if (a instanceof Error) throw a;
      return a;
    },
  };
  return { src, asked };
}

const until = async (what: string, probe: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('TimelineFeed', () => {
  it('fetches the whole timeline, then only what is new while the run is live, and stops once it has finished', async () => {
    const { src, asked } = source([timeline(5, 0, true), timeline(9, 5, true), timeline(12, 9, false)]);
    const model = new TimelineModel();
    let changes = 0;
    const feed = new TimelineFeed(src, model, () => changes++);
    feed.status(status('running'));
    await until('the finished timeline', () => model.finished);
    assert.deepEqual(asked, [undefined, 5, 9]);
    assert.equal(model.lastTick, 12);
    assert.equal(changes, 3);
    feed.status(status('finished'));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(asked, [undefined, 5, 9], 'nothing more asked of a finished run');
    feed.reset();
  });

  it("a run that is not recorded: the host's reason is kept and nothing more is asked", async () => {
    const { src, asked } = source([new Error('the run was not recorded (launch it with options.record)')]);
    const model = new TimelineModel();
    const feed = new TimelineFeed(src, model, () => undefined);
    feed.status(status('running'));
    await until('the refusal', () => feed.unavailable !== null);
    assert.match(feed.unavailable ?? '', /not recorded/);
    feed.status(status('paused'));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(asked.length, 1);
    feed.reset();
  });

  it("a new run forgets the previous one's timeline", async () => {
    const { src } = source([timeline(7, 0, false), timeline(3, 0, false)]);
    const model = new TimelineModel();
    const feed = new TimelineFeed(src, model, () => undefined);
    feed.status(status('finished', 1));
    await until('the first run', () => model.lastTick === 7);
    feed.status(status('finished', 2));
    await until('the second run', () => model.lastTick === 3);
    feed.reset();
  });
});
