// The tutorial samples the Open Tutorial Sample… quick pick offers. The host is asked first
// (host-protocol.ts's `samples` method; its answer is still narrowed from `unknown`, since an
// older host may not know the method); a host without it gets
// the static list below, which test/extension/sample-catalog.test.ts keeps equal to the
// runtime's own registry (runtime/samples/index.ts listSamples()).
//
// `file` is the sample's source under runtime/samples/ in the installed extension, opened
// beside the run so that its frames have somewhere to point.

import type { HostEndpoint } from './host-client/host-process';

export interface SampleEntry {
  id: string;
  title: string;
  chapter: string;
  file?: string;
}

export const STATIC_SAMPLES: readonly SampleEntry[] = Object.freeze([
  {
    id: 'generators',
    title: 'Generator basics: send, return, yield*, throw',
    chapter: 'The chapter: "How Python Generators Work", "Factoring Coroutines With yield from"',
    file: 'generators.ts',
  },
  {
    id: 'blocking',
    title: 'Blocking fetches, then pools of threads and processes',
    chapter: 'The chapter: "The Traditional Approach"; from blocking sockets to asyncio',
    file: 'blocking.ts',
  },
  {
    id: 'busy-nonblocking',
    title: 'A non-blocking socket and a busy retry loop',
    chapter: 'From blocking sockets to asyncio: the non-blocking way; the chapter: "Async"',
    file: 'busy-nonblocking.ts',
  },
  {
    id: 'callbacks',
    title: 'The select loop with callbacks, and its ripped stack trace',
    chapter: 'The chapter: "Async", "Programming With Callbacks"',
    file: 'callbacks.ts',
  },
  {
    id: 'future-task',
    title: 'Future + Task + a generator fetch, then factored with yield*',
    chapter: 'The chapter: "Building Coroutines With Generators", "Factoring Coroutines With yield from"',
    file: 'future-task.ts',
  },
  {
    id: 'crawler',
    title: 'The full crawler: a queue, workers, redirects, cancellation',
    chapter: 'The chapter: "Coordinating Coroutines"',
    file: 'full-crawler.ts',
  },
  {
    id: 'fib-threads',
    title: 'Printing on time while threads compute Fibonacci numbers',
    chapter: "asyncio compared with Node's event loop: Fibonacci on threads",
    file: 'fib-threads.ts',
  },
  {
    id: 'fib-loop',
    title: 'One loop blocked by CPU work, caught by the slow-callback warning',
    chapter: "asyncio compared with Node's event loop: Fibonacci blocks the ticks",
    file: 'fib-loop.ts',
  },
  {
    id: 'timers-loop',
    title: 'A callback event loop with a timer heap, built by hand',
    chapter: "asyncio compared with Node's event loop: callbacks and timers",
    file: 'timers-loop.ts',
  },
  {
    id: 'trampoline',
    title: 'A coroutine loop with explicit stacks (a trampoline)',
    chapter: "asyncio compared with Node's event loop: PEP 342's trampoline",
    file: 'trampoline.ts',
  },
  {
    id: 'exception-chain',
    title: 'An exception crossing coroutines A -> B -> C',
    chapter: "asyncio compared with Node's event loop: exceptions across coroutines",
    file: 'exception-chain.ts',
  },
  {
    id: 'gather-vs-ascompleted',
    title: 'gather against asCompleted',
    chapter: "asyncio compared with Node's event loop: gather and as_completed",
    file: 'gather-vs-ascompleted.ts',
  },
  {
    id: 'json-fetch',
    title: 'A JSON fetch over openConnection, HTTP by hand',
    chapter: "asyncio compared with Node's event loop: JSON over open_connection",
    file: 'json-fetch.ts',
  },
]);

/** Narrows a host's answer to `samples` ({samples: [{id, title, chapter?}]}). */
export function narrowSampleList(v: unknown): SampleEntry[] | null {
  if (typeof v !== 'object' || v === null) return null;
  const list = (v as Record<string, unknown>).samples;
  if (!Array.isArray(list)) return null;
  const out: SampleEntry[] = [];
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const s = item as Record<string, unknown>;
    if (typeof s.id !== 'string' || s.id === '') continue;
    const known = STATIC_SAMPLES.find((k) => k.id === s.id);
    const entry: SampleEntry = {
      id: s.id,
      title: typeof s.title === 'string' ? s.title : s.id,
      chapter: typeof s.chapter === 'string' ? s.chapter : '',
    };
    const file = typeof s.file === 'string' ? s.file : known?.file;
    if (file !== undefined) entry.file = file;
    out.push(entry);
  }
  return out.length > 0 ? out : null;
}

/** The samples, from the host when it can say, else the static list. */
export async function sampleList(
  endpoint: HostEndpoint | null,
): Promise<{ samples: readonly SampleEntry[]; fromHost: boolean }> {
  if (endpoint !== null) {
    try {
      const answer: unknown = await endpoint.request('samples', {});
      const list = narrowSampleList(answer);
      if (list !== null) return { samples: list, fromHost: true };
    } catch {
      // An older host without the method: use the static list.
    }
  }
  return { samples: STATIC_SAMPLES, fromHost: false };
}
