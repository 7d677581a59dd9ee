// A live run's recording handed over in growths (runtime/record/recording-growth.ts): a copy
// once, then between ticks only what was added since, through a growth file, appended in
// place; the grown recording is the live one byte for byte, no byte is handed over twice, and
// a growth that does not fit or is not a valid continuation is refused without changing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLoop } from '../../../runtime/loop';
import { RunRecorder } from '../../../runtime/record/run-recorder';
import { RecordingFormatError } from '../../../runtime/record/recording-errors';
import {
  bytesSince,
  GrowingRecording,
  readGrowthFile,
  writeGrowthFile,
  type StreamMark,
} from '../../../runtime/record/recording-growth';
import { readRunLog } from '../../../runtime/record/run-log';
import { startDemoSite, demoSiteOptions } from '../../../runtime/demo-site/index';
import { startMain } from '../../../runtime/host/main-thread/launch-programs';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-growth-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('a live recording handed over as a copy, then its growths between ticks: grown in place to the same streams, each byte handed over once', async () => {
  const site = await startDemoSite(demoSiteOptions('instant', 60));
  const rec = new RunRecorder({ awaitDetails: true });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  let grown: GrowingRecording | null = null;
  let mark: StreamMark | null = null;
  let handed = 0;
  let copied = 0;
  let growths = 0;
  const feed = (): void => {
    if (grown === null) {
      const copy = rec.streamsSoFar();
      grown = new GrowingRecording(copy, 'the copy');
      copied = copy.events.length + copy.gaps.length + copy.payload.length;
      mark = rec.markSoFar().mark;
      assert.deepEqual(mark, grown.mark());
      return;
    }
    const { bytes, to } = bytesSince(rec.soFar(), mark!);
    const path = join(dir, `growth-${growths++}`);
    const size = writeGrowthFile(path, { to }, bytes);
    const read = readGrowthFile(path, path);
    assert.deepEqual(read.head, { to });
    handed += read.bytes.events.length + read.bytes.gaps.length + read.bytes.payload.length;
    assert.ok(
      size < read.bytes.events.length + read.bytes.gaps.length + read.bytes.payload.length + 100,
      `a growth file is its new bytes (${size})`,
    );
    grown!.append(mark!, read.bytes, rec.markSoFar().counts);
    mark = to;
  };
  try {
    const main = startMain(loop, { kind: 'demo', pages: 60, latency: 'instant' }, { maxTasks: 5 }, site.url);
    const done = loop.runUntilComplete(main.task);
    // Between ticks: a timer of Node's, while the loop waits for its sockets.
    const feeding = setInterval(feed, 2);
    await done.finally(() => clearInterval(feeding));
    feed();
    const first = grown as GrowingRecording | null;
    assert.ok(first !== null && growths >= 3, `${growths} growths`);
    const live = rec.soFar();
    const streams = first.streams();
    assert.ok(streams.events.equals(live.events), 'the event log grown is the live one');
    assert.ok(Buffer.from(streams.gaps).equals(Buffer.from(live.gaps)), 'the clock readings too');
    assert.ok(streams.payload.equals(Buffer.concat(live.payloadFrom(0))), 'and the socket bytes');
    assert.equal(streams.ticks, rec.ticks);
    // The copy's bytes and the growths' add up to the recording: none handed over twice.
    const whole = live.events.length + live.gaps.length + streams.payload.length;
    assert.equal(copied + handed, whole, `${copied} bytes in the copy and ${handed} in growths, of ${whole}`);
    const log = readRunLog(streams.events, streams.gaps, streams.payload, 'grown');
    assert.equal(log.times.length, rec.ticks);
  } finally {
    rec.detach();
    loop.close();
    await site.close();
  }
});

test('a growth that does not start where the recording ends, or is not a valid continuation, is refused and changes nothing; after a bad one, every later one is refused', async () => {
  const site = await startDemoSite(demoSiteOptions('instant', 10));
  const rec = new RunRecorder();
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  try {
    const main = startMain(loop, { kind: 'demo', pages: 10, latency: 'instant' }, { maxTasks: 2 }, site.url);
    let copy: ReturnType<RunRecorder['streamsSoFar']> | null = null;
    let mark: StreamMark | null = null;
    const taking = setInterval(() => {
      if (copy === null && rec.ticks > 3) {
        copy = rec.streamsSoFar();
        mark = rec.markSoFar().mark;
      }
    }, 1);
    await loop.runUntilComplete(main.task).finally(() => clearInterval(taking));
    assert.ok(copy !== null && mark !== null);
    const counts = rec.markSoFar().counts;
    const { bytes } = bytesSince(rec.soFar(), mark);
    const grown = new GrowingRecording(copy, 'the copy');
    const before = grown.mark();
    assert.throws(
      () => grown.append({ ...mark!, events: mark!.events + 1 }, bytes, counts),
      (e: Error) => e instanceof RecordingFormatError && /does not fit a recording that ends at/.test(e.message),
    );
    assert.throws(
      () => grown.append(mark!, bytes, { ...counts, ticks: counts.ticks + 1 }),
      (e: Error) => e instanceof RecordingFormatError && /says \d+ ticks, its event log \d+/.test(e.message),
    );
    assert.deepEqual(grown.mark(), before, 'nothing appended');
    assert.throws(() => grown.append(mark!, bytes, counts), /refused a growth before/);
    // A cut growth, on a fresh copy: refused too.
    const again = new GrowingRecording(copy, 'the copy');
    assert.throws(
      () => again.append(mark!, { ...bytes, events: bytes.events.subarray(0, bytes.events.length - 1) }, counts),
      RecordingFormatError,
    );
    assert.deepEqual(again.mark(), before);
    // A growth file cut short is refused by its reader.
    const path = join(dir, 'cut');
    writeGrowthFile(path, {}, bytes);
    writeFileSync(path, readFileSync(path).subarray(0, 30));
    assert.throws(
      () => readGrowthFile(path, 'cut'),
      (e: Error) => e instanceof RecordingFormatError && /cut short/.test(e.message),
    );
  } finally {
    rec.detach();
    loop.close();
    await site.close();
  }
});
