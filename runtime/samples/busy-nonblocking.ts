// Sample 3, a non-blocking socket without a selector: the code never blocks, but it has no
// way to know when the socket is ready, so it keeps asking.

import { busyFetch } from './busy-fetch';
import { SOURCES, type Sample } from './sample';
import { listPagePaths } from './site-pages';
import { Transcript, secs } from './transcript';

const PAGES = 4;

export const busyNonblockingSample: Sample = {
  id: 'busy-nonblocking',
  ownLoop: true,
  title: 'A non-blocking socket and a busy retry loop',
  chapter: `${SOURCES.blockingToAsyncio}: the non-blocking way (before select); ${SOURCES.chapter}: "Async"`,
  explanation:
    'setBlocking(false) makes connect, send and recv return at once: not ready yet is a BlockingIOError. ' +
    'Without a selector the only thing to do is try again, so the loop spins, catching the error over and over. ' +
    'Between two tries it gives Node a single turn, just enough for arrived bytes to reach the socket. ' +
    'Count the wasted tries: thousands per page, all CPU burnt for nothing. ' +
    'And it is no faster than blocking: one page at a time, since the loop is stuck asking about this one socket.',
  async run(ctx) {
    const t = new Transcript(ctx);
    const site = new URL(ctx.siteUrl);
    const origin = { host: site.hostname, port: Number(site.port || 80) };
    const paths = (await listPagePaths(ctx.siteUrl)).slice(0, PAGES);
    let wasted = 0;
    let ok = 0;
    const t0 = performance.now();
    for (const path of paths) {
      const f0 = performance.now();
      const r = await busyFetch(origin, path);
      wasted += r.wastedTries;
      if (r.status === 200) ok++;
      t.log(`busy fetch ${path}: ${String(r.status)}, ${r.bytes} bytes, ${secs((performance.now() - f0) / 1000)}, ${r.wastedTries} tries found the socket not ready`);
    }
    const seconds = t.note('seconds', (performance.now() - t0) / 1000);
    t.note('wastedTries', wasted);
    t.log(`${ok} pages, one at a time, in ${secs(seconds)}; ${wasted} wasted tries in all`);
    t.check(ok === paths.length, 'every page came back 200');
    t.check(wasted > paths.length, 'the busy loop wasted tries on every page');
    return t.outcome();
  },
};
