// Golden step transcripts (issue 26): for each of the 13 tutorial samples, the (function, line)
// positions that Step Into (F11) visits from the first line of the sample's own code, written
// down from the sample's text, as a reader stepping it would predict them. Checked by
// step-transcripts.test.ts through the standalone debug adapter.
//
// A step is `function:line` in the sample's file, or `function@file.ts:line` in another file of
// the program (the sample's Transcript, the crawler, the teaching loops). A step marked `~` is
// reached across a suspension of the task: the `yield*` of the line before gave the thread back
// to the loop, the Debug Console says on what ("Task-1 suspended on sleep (0.01s); ..."), and the
// step lands on the same task's next line once the loop resumes it. F11 goes into the program's
// functions (a generator's first line included, on its first `yield*` too) and over the
// runtime's own library (sleep, queue, streams), Node's internals and the bundler's glue.
//
// Invariants: `steps[0]` is the breakpoint's stop on `start`; each later entry is one F11.

export interface StepTranscript {
  /** The sample's id (the launch's `sample`). */
  readonly sample: string;
  /** The sample's file under runtime/samples. */
  readonly file: string;
  /** The text of the line the breakpoint is on (its first occurrence). */
  readonly start: string;
  /** What the walk shows, in the sample's own words. */
  readonly why: string;
  /** For a sample that drives a thread, a process or a loop of its own: what can be stepped and what cannot. */
  readonly stepping?: string;
  readonly steps: readonly string[];
}

const LOG = ['log@transcript.ts:20', 'log@transcript.ts:21', 'log@transcript.ts:22'];
/** `new Transcript(ctx)`: its fields, then its constructor. */
const NEW_TRANSCRIPT = [
  '<instance_members_initializer>@transcript.ts:10',
  '<instance_members_initializer>@transcript.ts:11',
  '<instance_members_initializer>@transcript.ts:12',
  '<instance_members_initializer>@transcript.ts:42',
  'Transcript@transcript.ts:16',
  'Transcript@transcript.ts:17',
];
/** Part 1's loop: one `totals.next(x)` resumes runningTotal at its yield, then the line is logged. */
const SEND = ['runningTotal:20', 'runningTotal:21', 'runningTotal:19', 'generatorTour:75', ...LOG, 'generatorTour:75'];

export const STEP_TRANSCRIPTS: readonly StepTranscript[] = [
  {
    sample: 'generators',
    file: 'generators.ts',
    start: "t.log('1. Values sent in",
    why: 'part 1: next() runs runningTotal to its first yield; each next(x) resumes it at the yield with x, and it yields the new total',
    steps: [
      'generatorTour:72',
      ...LOG,
      'generatorTour:73', // runningTotal() only makes the generator: nothing of it runs
      'generatorTour:74',
      'runningTotal:17',
      'runningTotal:19', // to the first yield
      'generatorTour:75',
      ...SEND,
      ...SEND,
      ...SEND,
      'generatorTour:76',
      'runningTotal:20', // next(-1): x < 0, it returns the total
      'generatorTour:77',
      ...LOG,
      'generatorTour:78',
      'check@transcript.ts:32',
    ],
  },
  {
    sample: 'generators',
    file: 'generators.ts',
    start: 'const chain = top(lines);',
    why: 'part 4: "step into the chain and see the error travel leaf -> middle -> top": into top, its yield* into middle (its first run), middle\'s into leaf, out at leaf\'s yield; the next next() resumes leaf, which throws: its finally runs, middle has no try, top catches',
    steps: [
      'generatorTour:102',
      'generatorTour:103',
      'top:64',
      'middle:59',
      'leaf:50',
      'generatorTour:103',
      ...LOG,
      'generatorTour:104',
      'leaf:51',
      'leaf:53',
      'lines:101',
      ...LOG,
      'lines:101',
      'top:67',
      'generatorTour:105',
    ],
  },
  {
    sample: 'blocking',
    file: 'blocking.ts',
    start: 'const t = new Transcript(ctx);',
    why: "the sample's async run on the host's thread: into the Transcript, then into listPagePaths and its plain GET",
    stepping:
      "its code on the host's thread steps line by line (no task: there is nothing to go back to); the blocking fetches and the copy of the site run on threads of their own, which F11 does not enter",
    steps: [
      'run:64',
      ...NEW_TRANSCRIPT,
      'run:65',
      'listPagePaths@site-pages.ts:31',
      'listPagePaths@site-pages.ts:32',
      'plainGet@site-pages.ts:18',
      '(anonymous)@site-pages.ts:19',
      '(anonymous)@site-pages.ts:25',
      '(anonymous)@site-pages.ts:26',
      'plainGet@site-pages.ts:26',
    ],
  },
  {
    sample: 'busy-nonblocking',
    file: 'busy-nonblocking.ts',
    start: 'const t = new Transcript(ctx);',
    why: "the busy retry loop's run: its first lines, then into listPagePaths",
    stepping: "all of it runs on the host's thread, in a loop of its own: it steps line by line, with no task",
    steps: [
      'run:23',
      ...NEW_TRANSCRIPT,
      'run:24',
      'run:25',
      'run:26',
      'listPagePaths@site-pages.ts:31',
      'listPagePaths@site-pages.ts:32',
      'plainGet@site-pages.ts:18',
      '(anonymous)@site-pages.ts:19',
      '(anonymous)@site-pages.ts:25',
    ],
  },
  {
    sample: 'callbacks',
    file: 'callbacks.ts',
    start: 'const t = new Transcript(ctx);',
    why: 'into crawlWithCallbacks: the crawl object and its selector are built before the hand-made loop runs',
    stepping:
      "the hand-made callback loop runs on the host's thread: it steps line by line, callbacks included, with no task",
    steps: [
      'run:24',
      ...NEW_TRANSCRIPT,
      'run:25',
      'crawlWithCallbacks@callback-fetcher.ts:206',
      'crawlWithCallbacks@callback-fetcher.ts:208',
      'CallbackCrawl@callback-fetcher.ts:46',
      '<instance_members_initializer>@teaching-crawl.ts:156',
      '<instance_members_initializer>@selector.ts:105',
      '<instance_members_initializer>@selector.ts:106',
      '<instance_members_initializer>@selector.ts:107',
    ],
  },
  {
    sample: 'future-task',
    file: 'future-task.ts',
    start: 'const t = new Transcript(ctx);',
    why: "the chapter's own Future and Task: a SimpleFuture is built, the waiter generator defined, then the SimpleTask that drives it",
    stepping:
      "the chapter's Future, Task and loop run on the host's thread, not the runtime's loop: they step line by line, with no task of the runtime",
    steps: [
      'run:98',
      ...NEW_TRANSCRIPT,
      'run:99',
      ...LOG,
      'run:100',
      '<instance_members_initializer>@generator-fetcher.ts:48',
      '<instance_members_initializer>@generator-fetcher.ts:49',
      '<instance_members_initializer>@generator-fetcher.ts:51',
      '<instance_members_initializer>@generator-fetcher.ts:72',
      'SimpleFuture@generator-fetcher.ts:47',
      'run:101',
      'run:102',
      'run:106',
      '<instance_members_initializer>@generator-fetcher.ts:81',
    ],
  },
  {
    sample: 'crawler',
    file: 'full-crawler.ts',
    start: 'const loop = getRunningLoop();',
    why: 'crawlAndReport builds the Crawler: into its constructor, field by field',
    steps: [
      'crawlAndReport:37',
      'crawlAndReport:38',
      'Crawler@crawler.ts:92',
      'Crawler@crawler.ts:93',
      'Crawler@crawler.ts:94',
      'Crawler@crawler.ts:95',
      'Crawler@crawler.ts:96',
    ],
  },
  {
    sample: 'fib-threads',
    file: 'fib-threads.ts',
    start: 't.log(`computing fib(${ns.join(',
    why: "fibWhileTicking posts the numbers to the worker thread and waits on each answer's future: the task suspends there and the ticker runs",
    stepping:
      "the task on the runtime's loop steps line by line; Fibonacci runs on a worker thread, which F11 does not enter (postMessage hands it over), and the answer comes back as a future the task waits on",
    steps: [
      'fibWhileTicking:25',
      ...LOG,
      'fibWhileTicking:26',
      'fibWhileTicking:27',
      '(anonymous):27',
      'fibWhileTicking:27',
      'fibWhileTicking:30',
      'fibWhileTicking:33',
      'fibWhileTicking:34',
      'fibWhileTicking:36',
      'fibWhileTicking:37',
      'fibWhileTicking:38',
      '~fibWhileTicking:39',
      ...LOG,
      'fibWhileTicking:37',
    ],
  },
  {
    sample: 'fib-loop',
    file: 'fib-loop.ts',
    start: 't.log(`computing fib(${n}) on the loop',
    why: "fibBlockingTheLoop sets the loop's debug mode, starts the fib task and waits on it: it suspends there, then on a sleep",
    steps: [
      'fibBlockingTheLoop:27',
      ...LOG,
      'fibBlockingTheLoop:28',
      'fibBlockingTheLoop:29',
      'fibBlockingTheLoop:30',
      'fibBlockingTheLoop:31',
      'fibBlockingTheLoop:32',
      'fibBlockingTheLoop:36',
      'fibBlockingTheLoop:38',
      'fibBlockingTheLoop:39',
      'fibBlockingTheLoop:40',
      'fibBlockingTheLoop:42',
      '~fibBlockingTheLoop:44',
      '~fibBlockingTheLoop:46',
      'fibBlockingTheLoop:47',
    ],
  },
  {
    sample: 'timers-loop',
    file: 'timers-loop.ts',
    start: 'const t = new Transcript(ctx);',
    why: 'the hand-made loop with its timer heap is built',
    stepping:
      "the hand-made callback loop runs on the host's thread: it steps line by line, with no task of the runtime",
    steps: [
      'run:25',
      ...NEW_TRANSCRIPT,
      'run:26',
      '<instance_members_initializer>@tiny-callback-loop.ts:77',
      '<instance_members_initializer>@tiny-callback-loop.ts:79',
      '<instance_members_initializer>@tiny-callback-loop.ts:80',
      '<instance_members_initializer>@tiny-callback-loop.ts:81',
      '<instance_members_initializer>@tiny-callback-loop.ts:25',
      '<instance_members_initializer>@tiny-callback-loop.ts:70',
      'TimerHeap@tiny-callback-loop.ts:24',
    ],
  },
  {
    sample: 'trampoline',
    file: 'trampoline.ts',
    start: 'const t = new Transcript(ctx);',
    why: 'the trampoline loop is built',
    stepping: "the trampoline loop runs on the host's thread: it steps line by line, with no task of the runtime",
    steps: [
      'run:31',
      ...NEW_TRANSCRIPT,
      'run:32',
      '<instance_members_initializer>@trampoline-loop.ts:46',
      '<instance_members_initializer>@trampoline-loop.ts:47',
      '<instance_members_initializer>@trampoline-loop.ts:48',
      '<instance_members_initializer>@trampoline-loop.ts:49',
      '<instance_members_initializer>@trampoline-loop.ts:50',
      '<instance_members_initializer>@trampoline-loop.ts:52',
      '<instance_members_initializer>@trampoline-loop.ts:54',
    ],
  },
  {
    sample: 'exception-chain',
    file: 'exception-chain.ts',
    start: 'const b = yield* passThroughB();',
    why: 'C waits on B, B on A; A suspends on a sleep, is resumed and throws; the error crosses B (no try) and C catches it',
    steps: [
      'C:26',
      'B:20',
      'A:15',
      '~A:16', // the task suspended on the sleep; resumed, A throws
      'C:29', // the handler's first line: B is crossed
      'C:30',
      ...LOG,
      'C:31',
      'frameNames@stack-frames.ts:12',
      'frameNames@stack-frames.ts:13',
      'frameNames@stack-frames.ts:14',
      'frameNames@stack-frames.ts:15',
      'frameNames@stack-frames.ts:16',
    ],
  },
  {
    sample: 'gather-vs-ascompleted',
    file: 'gather-vs-ascompleted.ts',
    start: 'const loop = getRunningLoop();',
    why: 'asCompleted: the getUrl tasks are made, then each `yield* next` suspends compareWaits until the next download is in, and its line is logged',
    steps: [
      'compareWaits:28',
      'compareWaits:29',
      'compareWaits:30',
      ...LOG,
      'compareWaits:31',
      'compareWaits:32',
      '(anonymous):32',
      'compareWaits:32',
      'compareWaits:33',
      '~compareWaits:34',
      'compareWaits:35',
      ...LOG,
      'compareWaits:32',
      'compareWaits:33',
      '~compareWaits:34',
      'compareWaits:35',
      ...LOG,
    ],
  },
  {
    sample: 'json-fetch',
    file: 'json-fetch.ts',
    start: 'const site = new URL(siteUrl);',
    why: "fetchJson connects (it suspends on the connect), into writeRequest, then reads the status line (it suspends on the read) and into readHeaders' loop",
    steps: [
      'fetchJson:43',
      'fetchJson:44',
      '~fetchJson:46',
      'writeRequest:13',
      'writeRequest:20',
      'writeRequest:21',
      'writeRequest:22',
      'writeRequest:23',
      'writeRequest:24',
      'fetchJson:47',
      '~fetchJson:48',
      'fetchJson:49',
      ...LOG,
      'fetchJson:50',
      'readHeaders:27',
      'readHeaders:29',
      'readHeaders:30',
      'readHeaders:31',
      'readHeaders:32',
      'readHeaders:33',
      'readHeaders:29',
    ],
  },
];
