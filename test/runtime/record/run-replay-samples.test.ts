// Replay is exact for the tutorial samples: each sample that runs on the runtime's loop is
// recorded against the demo site, the site is stopped, and the sample is run again on a
// replaying loop; the replayed event log must equal the recorded one. Two samples take
// inputs the loop cannot see, and a replay refuses them instead of pretending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLES } from '../../../runtime/samples/index';
import { EventLoop } from '../../../runtime/loop';
import { startDemoSite } from '../../../runtime/demo-site/index';
import { RunRecorder, type RecordedStreams } from '../../../runtime/record/run-recorder';
import { RunReplay } from '../../../runtime/record/run-replay';
import { readRunLog } from '../../../runtime/record/run-log';
import type { Sample, SampleOutcome } from '../../../runtime/samples/sample';

/** Samples with inputs from outside the loop's clock and sockets, and what they are. */
const NOT_REPLAYABLE: Record<string, string> = {
  crawler: 'lists the demo site\'s pages with node:http before its loop runs',
  'fib-threads': 'its results come from worker threads, not through the loop',
};

async function recordSample(sample: Sample): Promise<{ outcome: SampleOutcome; streams: RecordedStreams; siteUrl: string }> {
  const site = await startDemoSite({ pages: 30 });
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  try {
    const outcome = await sample.run({ siteUrl: site.url, log: () => undefined, loop });
    return { outcome, streams: rec.finish(), siteUrl: site.url };
  } finally {
    rec.detach();
    loop.close();
    await site.close();
  }
}

async function replaySample(sample: Sample, streams: RecordedStreams, siteUrl: string): Promise<SampleOutcome> {
  const replay = new RunReplay(readRunLog(streams.events, streams.gaps, streams.payload, sample.id), streams.events, `${sample.id}.corotrace`);
  const loop = new EventLoop({ clock: replay.clock });
  replay.attach(loop);
  try {
    const outcome = await sample.run({ siteUrl, log: () => undefined, loop });
    replay.verify();
    return outcome;
  } finally {
    replay.detach();
    loop.close();
  }
}

const onLoop = SAMPLES.filter((s) => !s.ownLoop);

test('there are samples on the runtime\'s loop to replay', () => {
  assert.ok(onLoop.length >= 5, onLoop.map((s) => s.id).join(', '));
  for (const id of Object.keys(NOT_REPLAYABLE)) assert.ok(onLoop.some((s) => s.id === id), `${id} is a sample on the loop`);
});

for (const sample of onLoop.filter((s) => !(s.id in NOT_REPLAYABLE))) {
  test(`sample ${sample.id}: the replay, offline, has the recorded event log and the same verdict`, async () => {
    const recorded = await recordSample(sample);
    assert.ok(recorded.outcome.ok, recorded.outcome.lines.join('\n'));
    assert.ok(recorded.streams.ticks > 0);
    const replayed = await replaySample(sample, recorded.streams, recorded.siteUrl);
    assert.equal(replayed.ok, recorded.outcome.ok);
  });
}

for (const [id, why] of Object.entries(NOT_REPLAYABLE)) {
  test(`sample ${id} is not replayable (${why}): the replay fails, it does not hang or pass`, async () => {
    const sample = onLoop.find((s) => s.id === id)!;
    const recorded = await recordSample(sample);
    await assert.rejects(replaySample(sample, recorded.streams, recorded.siteUrl));
  });
}
