// Replay is exact for the tutorial samples: each sample that runs on the runtime's loop is
// recorded against the demo site, the site is stopped, and the sample is run again on a
// replaying loop; the replayed event log must equal the recorded one. What a sample measures
// outside its loop (SampleContext.measured) is kept with the recording and given back to the
// replay, as the host does. A sample whose results come from outside the loop is refused.
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
  'fib-threads': 'its results come from worker threads, not through the loop',
};

type Measured = Map<string, number>;

async function recordSample(
  sample: Sample,
): Promise<{ outcome: SampleOutcome; streams: RecordedStreams; siteUrl: string; measured: Measured }> {
  const site = await startDemoSite({ pages: 30 });
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const kept: Measured = new Map();
  const measured = (name: string, measure: () => number): number => {
    const value = measure();
    kept.set(name, value);
    return value;
  };
  try {
    const outcome = await sample.run({ siteUrl: site.url, log: () => undefined, loop, measured });
    return { outcome, streams: rec.finish(), siteUrl: site.url, measured: kept };
  } finally {
    rec.detach();
    loop.close();
    await site.close();
  }
}

async function replaySample(
  sample: Sample,
  streams: RecordedStreams,
  siteUrl: string,
  kept: Measured,
): Promise<SampleOutcome> {
  const replay = new RunReplay(
    readRunLog(streams.events, streams.gaps, streams.payload, sample.id),
    streams.events,
    `${sample.id}.corotrace`,
  );
  const loop = new EventLoop({ clock: replay.clock });
  replay.attach(loop);
  try {
    const measured = (name: string, measure: () => number): number => kept.get(name) ?? measure();
    const outcome = await sample.run({ siteUrl, log: () => undefined, loop, measured });
    replay.verify();
    return outcome;
  } finally {
    replay.detach();
    loop.close();
  }
}

const onLoop = SAMPLES.filter((s) => !s.ownLoop);

test("there are samples on the runtime's loop to replay", () => {
  assert.ok(onLoop.length >= 5, onLoop.map((s) => s.id).join(', '));
  for (const id of Object.keys(NOT_REPLAYABLE))
    assert.ok(
      onLoop.some((s) => s.id === id),
      `${id} is a sample on the loop`,
    );
});

for (const sample of onLoop.filter((s) => !(s.id in NOT_REPLAYABLE))) {
  test(`sample ${sample.id}: the replay, offline, has the recorded event log and the same verdict`, async () => {
    const recorded = await recordSample(sample);
    assert.ok(recorded.outcome.ok, recorded.outcome.lines.join('\n'));
    assert.ok(recorded.streams.ticks > 0);
    const replayed = await replaySample(sample, recorded.streams, recorded.siteUrl, recorded.measured);
    assert.equal(replayed.ok, recorded.outcome.ok);
  });
}

for (const [id, why] of Object.entries(NOT_REPLAYABLE)) {
  test(`sample ${id} is not replayable (${why}): the replay fails, it does not hang or pass`, async () => {
    const sample = onLoop.find((s) => s.id === id)!;
    const recorded = await recordSample(sample);
    await assert.rejects(replaySample(sample, recorded.streams, recorded.siteUrl, recorded.measured));
  });
}
