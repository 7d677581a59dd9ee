// Recording size (`npm run bench:recording-size [-- --pages N --max-tasks N]`): a crawl
// recorded (bench/recorded-crawl.ts, written with the .corotrace writer the CLI and Save
// Recording use) of the demo site (its pages of 24 KiB, as the CLI's `crawl --demo` serves
// them, without the latency) and of nginx serving the Python 3.11 documentation (skipped
// without nginx-light and python3.11-doc). For each: bytes per task step of the event log
// alone (raw, and gzipped as the file holds it), of the whole file as kept (format 4: the
// socket bytes by brotli with a 16 MiB window) and at the fast setting (a line replay's
// recording), against one gzip of every section (format 3) measured in the same run, with
// the time each takes to write.

import { gzipSync } from 'node:zlib';
import { startDemoSite } from '../runtime/demo-site/index';
import { REALISTIC_TRANSPORT } from '../runtime/demo-site/latency';
import { encodeRecording, readRecordingFile, type Recording } from '../runtime/record/recording-file';
import { crawlRecorded } from './recorded-crawl';
import { nginxAvailable, startNginxSite } from './sites/nginx-site';

interface Args {
  pages: number | undefined;
  maxTasks: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { pages: undefined, maxTasks: 50 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const n = Number(argv[++i]);
    if (v === '--pages') a.pages = n;
    else if (v === '--max-tasks') a.maxTasks = n;
    else throw new Error(`unknown argument ${v}`);
  }
  return a;
}

/** One gzip (level 6) of every section, as format 3 wrote a file (the peer of this run). */
function asFormat3(rec: Recording): Buffer {
  const parts: Buffer[] = [];
  for (const bytes of [Buffer.from(JSON.stringify(rec.meta), 'utf8'), rec.events, rec.gaps, rec.payload]) {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(bytes.length, 0);
    parts.push(len, bytes);
  }
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

/** Bytes and the best of three times (ms). */
function timed(make: () => Buffer): { bytes: number; ms: number } {
  let ms = Infinity;
  let bytes = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    bytes = make().length;
    ms = Math.min(ms, performance.now() - t);
  }
  return { bytes, ms };
}

async function measure(title: string, url: string, maxTasks: number): Promise<void> {
  const run = await crawlRecorded(url, maxTasks);
  const rec = readRecordingFile(run.file);
  const steps = rec.meta.steps;
  const perStep = (bytes: number): string => `${(bytes / steps).toFixed(1)} B/step`;
  const log = gzipSync(Buffer.concat([rec.events, rec.gaps]), { level: 6 }).length;
  const kept = timed(() => encodeRecording(rec));
  const fast = timed(() => encodeRecording(rec, true));
  const v3 = timed(() => asFormat3(rec));
  console.log(
    `\n${title}: ${Object.values(run.byStatus).reduce((a, b) => a + b, 0)} URLs, ${steps} task steps, ${rec.meta.ticks} ticks, ${rec.payload.length} bytes received`,
  );
  console.log(
    `  event log alone:             ${perStep(rec.events.length + rec.gaps.length)} raw, ${perStep(log)} gzipped`,
  );
  console.log(
    `  whole file, kept (format 4): ${perStep(kept.bytes)} (${kept.bytes} bytes, written in ${kept.ms.toFixed(0)} ms)`,
  );
  console.log(`  whole file, fast setting:    ${perStep(fast.bytes)} (${fast.bytes} bytes, ${fast.ms.toFixed(0)} ms)`);
  console.log(
    `  one gzip of all (format 3):  ${perStep(v3.bytes)} (${v3.bytes} bytes, ${v3.ms.toFixed(0)} ms); kept / format 3: ${(kept.bytes / v3.bytes).toFixed(2)} the size, ${(kept.ms / v3.ms).toFixed(2)} the time`,
  );
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const demo = await startDemoSite({
    pageBytes: REALISTIC_TRANSPORT.pageBytes,
    ...(args.pages !== undefined ? { pages: args.pages } : {}),
  });
  try {
    await measure(
      `demo site${args.pages !== undefined ? ` (${args.pages} pages)` : ''}, pages of ${REALISTIC_TRANSPORT.pageBytes} bytes`,
      demo.url,
      args.maxTasks,
    );
  } finally {
    await demo.close();
  }
  if (!nginxAvailable()) {
    console.log('\n(nginx site skipped: apt-get install -y nginx-light python3.11-doc)');
    return;
  }
  const nginx = await startNginxSite();
  try {
    await measure('nginx serving the Python 3.11 documentation', nginx.url, args.maxTasks);
  } finally {
    await nginx.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
