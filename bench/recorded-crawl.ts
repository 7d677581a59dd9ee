// The crawl benchmark's --record part: the same crawl recorded (runtime/record) and the
// recording written to a file, its size per task step, and how long a replay takes, to the
// end and to a tick mid-run with every task's frames and locals read there.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLoop } from '../runtime/loop';
import { setCoroutineTracking } from '../runtime/coroutine';
import { Crawler } from '../runtime/crawler/crawler';
import { framesOfTasks } from '../runtime/inspect/task-snapshot';
import { RunRecorder } from '../runtime/record/run-recorder';
import { RunReplay } from '../runtime/record/run-replay';
import { readRunLog } from '../runtime/record/run-log';
import { readRecordingFile, writeRecordingFile } from '../runtime/record/recording-file';

export interface RecordedCrawlRun {
  /** The crawl, recording (writing the file apart: see writeSeconds). */
  seconds: number;
  rate: number;
  /** Writing the recording to its file once the crawl is done (gzip of the bodies and the log). */
  writeSeconds: number;
  byStatus: Record<string, number>;
  file: string;
  fileBytes: number;
  steps: number;
  ticks: number;
  /** The crawl's CPU per URL (µs), recording: writing the file after it is not counted (see writeSeconds). */
  cpuPerUrlUs: number;
}

const dir = mkdtempSync(join(tmpdir(), 'coroscope-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function statusCounts(crawler: Crawler): Record<string, number> {
  const byStatus: Record<string, number> = {};
  for (const s of crawler.done) {
    const k = s.status === null ? 'error' : String(s.status);
    byStatus[k] = (byStatus[k] ?? 0) + 1;
  }
  return byStatus;
}

/**
 * The crawl recorded; its rate is the crawl's, and the time writing the file is given apart
 * (the extension keeps a recording in memory and writes it only when saved). `frames`: with
 * coroutine tracking on, each suspension written with its frame chain and the calls already
 * written marked (format 3), as the extension's inspected runs record.
 */
export async function crawlRecorded(url: string, maxTasks: number, frames = false): Promise<RecordedCrawlRun> {
  setCoroutineTracking(frames);
  const rec = new RunRecorder({ frames });
  const loop = new EventLoop({ clock: rec.clock });
  rec.attach(loop);
  const crawler = new Crawler([url], { maxTasks, robots: false });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  try {
    await loop.runUntilComplete(crawler.crawl());
  } finally {
    setCoroutineTracking(false);
  }
  const streams = rec.finish();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const t1 = performance.now();
  const file = join(dir, 'crawl.corotrace');
  const { bytes: fileBytes } = writeRecordingFile(file, {
    meta: {
      program: { kind: 'bench-crawl', url, maxTasks },
      sources: [],
      ticks: streams.ticks,
      steps: streams.steps,
      tasks: streams.tasks,
      sockets: streams.sockets,
      recordedAt: new Date().toISOString(),
    },
    events: streams.events,
    gaps: streams.gaps,
    payload: streams.payload,
  });
  const writeSeconds = (performance.now() - t1) / 1000;
  loop.close();
  return {
    seconds,
    rate: crawler.done.length / seconds,
    writeSeconds,
    byStatus: statusCounts(crawler),
    file,
    fileBytes,
    steps: streams.steps,
    ticks: streams.ticks,
    cpuPerUrlUs: (cpu.user + cpu.system) / Math.max(1, crawler.done.length),
  };
}

/**
 * Replays a recording of crawlRecorded: to the end (checked against the recording), and to
 * its middle tick with coroutine tracking on, reading every task's frames and locals there.
 */
export interface ReplayTimes {
  /** Read, replay to the end, check: seconds. */
  fullSeconds: number;
  midTick: number;
  /** Read and replay to the middle tick (coroutine tracking on): seconds. */
  toTickSeconds: number;
  /** Then the frames and locals of one task (the first one inside a fetch): seconds. */
  oneTaskSeconds: number;
  /** Then the frames and locals of every task: seconds, and how many frames. */
  allTasksSeconds: number;
  frames: number;
}

export async function replayTimes(run: RecordedCrawlRun, url: string, maxTasks: number): Promise<ReplayTimes> {
  const t0 = performance.now();
  const rec = readRecordingFile(run.file);
  const log = readRunLog(rec.events, rec.gaps, rec.payload, run.file);
  const full = new RunReplay(log, rec.events, run.file);
  const loop = new EventLoop({ clock: full.clock });
  full.attach(loop);
  await loop.runUntilComplete(new Crawler([url], { maxTasks, robots: false }).crawl());
  full.verify();
  loop.close();
  const fullSeconds = (performance.now() - t0) / 1000;

  const t1 = performance.now();
  const midTick = Math.max(1, Math.floor(log.times.length / 2));
  setCoroutineTracking(true);
  let stop: (loop: EventLoop) => void = () => undefined;
  const stopped = new Promise<EventLoop>((resolve) => (stop = resolve));
  const mid = new RunReplay(readRunLog(rec.events, rec.gaps, rec.payload, run.file), rec.events, run.file, {
    stopAfterTick: midTick,
    onStop: (_t, l) => stop(l),
  });
  const midLoop = new EventLoop({ clock: mid.clock });
  mid.attach(midLoop);
  void midLoop.runUntilComplete(new Crawler([url], { maxTasks, robots: false }).crawl());
  const at = await stopped;
  const toTickSeconds = (performance.now() - t1) / 1000;
  const t2 = performance.now();
  const tasks = at.allTasks();
  const busy = tasks.find((t) => t._frames?.some((f) => f.fn.name === 'fetch')) ?? tasks[0]!;
  framesOfTasks([busy], { locals: true });
  const oneTaskSeconds = (performance.now() - t2) / 1000;
  const t3 = performance.now();
  const frames = framesOfTasks(tasks, { locals: true });
  let count = 0;
  for (const f of frames.values()) count += f.length;
  const allTasksSeconds = (performance.now() - t3) / 1000;
  // The stopped replay holds the process's recording slot and socket tap: give them back.
  mid.verify();
  setCoroutineTracking(false);
  return { fullSeconds, midTick, toTickSeconds, oneTaskSeconds, allTasksSeconds, frames: count };
}
