// The public face of Coroscope's runtime: every name docs/design/runs-and-programs.md promises, exported
// from one place (built to dist/runtime/index.js). Tests outside the project import these.

export {
  EventLoop,
  type Awaitable,
  type EventLoopOptions,
  type ExceptionContext,
  type ExceptionHandler,
  type LoopObserver,
  type LoopLogger,
} from './loop';
export { Future, isFuture, type DoneCallback, type FutureOrigin } from './future';
export { Task, isCoroutine, type Coroutine } from './task';
export { CancelRequest } from './cancel-request';
export {
  coroutine,
  isCoroutineFunction,
  isTrackingWrapper,
  setCoroutineTracking,
  type CoroutineFrame,
} from './coroutine';
export {
  inspect,
  isInspectable,
  inspectResource,
  exceptionOf,
  type Inspectable,
  type Inspection,
  type FutureInspection,
  type TaskInspection,
  type ResourceInspection,
  type LoopInspection,
  type ScheduledStep,
  type FutureOutcome,
  type WokenBy,
} from './inspection';
export { Handle, TimerHandle } from './handle';
export { MonotonicClock, VirtualClock, type Clock } from './clock';
export { getRunningLoop } from './running-loop';
export { run, cancelAllTasks } from './run';
export { sleep } from './sleep';
export { gather, GatheringFuture, type GatherOptions } from './gather';
export { asCompleted } from './as-completed';
export { waitFor } from './wait-for';
export { withTimeout, timeoutAt, Timeout, type TimeoutBody } from './timeout';
export { wait, FIRST_COMPLETED, FIRST_EXCEPTION, ALL_COMPLETED, type ReturnWhen, type WaitOptions } from './wait';
export { TaskGroup } from './task-group';
export { BaseExceptionGroup, ExceptionGroup, type ExceptionMatcher } from './exception-group';
export { shield } from './shield';
export { Queue } from './queue';
export { LifoQueue } from './lifo-queue';
export { PriorityQueue, comparePriority, type PriorityCompare } from './priority-queue';
export { Event } from './event';
export { Lock } from './lock';
export { Condition } from './condition';
export { Barrier } from './barrier';
export { Semaphore, BoundedSemaphore } from './semaphore';
export { Socket, type SocketAddress, type SocketOptions } from './socket';
export { DefaultSelector, EVENT_READ, EVENT_WRITE, type SelectorKey, type FileObject } from './selector';
export { sockConnect, sockRecv, sockSendall } from './socket-ops';
export { openConnection, StreamReader, StreamWriter, type OpenConnectionOptions } from './streams';
export * from './http/index';
export { Crawler, type CrawlerOptions } from './crawler/crawler';
export { Fetcher, CallbackCrawl, crawlWithCallbacks } from './crawler/callback-fetcher';
export { GeneratorCrawl, SimpleFuture, SimpleTask, crawlWithGenerators } from './crawler/generator-fetcher';
export { formatReport, summarize, type FetchStatistic } from './crawler/report';
export { startDemoSite, type DemoSite, type DemoSiteOptions } from './demo-site/index';
export {
  CoroscopeError,
  CancelledError,
  InvalidStateError,
  TimeoutError,
  QueueEmpty,
  QueueFull,
  RuntimeError,
  ValueError,
  KeyError,
  BrokenBarrierError,
  OSError,
  BlockingIOError,
  ConnectionError,
  ConnectionRefusedError,
  ConnectionResetError,
  ConnectionAbortedError,
  BrokenPipeError,
  SocketTimeoutError,
  AddressLookupError,
  IncompleteReadError,
  LimitOverrunError,
} from './errors';

import { getRunningLoop } from './running-loop';
import type { Task } from './task';

/** The task running the current coroutine step, or null (asyncio.current_task). */
export function currentTask(): Task<unknown> | null {
  return getRunningLoop().currentTask();
}

/** Every task of the running loop that is not done (asyncio.all_tasks). */
export function allTasks(): Task<unknown>[] {
  return getRunningLoop().allTasks();
}
