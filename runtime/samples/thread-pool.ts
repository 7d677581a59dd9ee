// A pool of worker threads, each fetching one page at a time (see fetch-pool.ts).
//
// A Node worker thread is a whole V8 isolate with its own event loop and heap: much heavier
// to start than a Python thread, lighter than a process. Threads cannot report their memory
// apart from the process's, so the pool measures it as growth of this process's RSS.

import type { Worker } from 'node:worker_threads';
import { startEvalWorker } from './eval-worker';
import { FetchPool, MemberState, startMembers, type FetchJob, type FetchReply, type PoolMember } from './fetch-pool';
import { collectGarbage } from './memory';
import type { ProgramLoopWorker } from '../program-loops';
import { POOL_THREAD_SOURCE } from './worker-sources';

class ThreadMember implements PoolMember {
  private readonly worker: Worker;
  private readonly state = new MemberState();

  constructor(worker: Worker) {
    this.worker = worker;
    worker.on('message', (reply: FetchReply) => this.state.replied(reply));
    worker.on('error', (error) => this.state.died(`fetch thread failed: ${error.message}`));
    worker.on('exit', (code) => this.state.died(`fetch thread exited with code ${code}`));
  }

  describe(): ProgramLoopWorker {
    return { kind: 'thread', name: `thread ${this.worker.threadId}`, state: this.state.describe() };
  }

  send(job: FetchJob): void {
    this.state.send(job, (j) => this.worker.postMessage(j));
  }

  onReply(listener: (reply: FetchReply) => void): void {
    this.state.onReply(listener);
  }

  memoryBytes(): number | null {
    return null;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export async function startThreadPool(size: number): Promise<FetchPool> {
  collectGarbage();
  const rssBefore = process.memoryUsage.rss();
  const { members, seconds } = await startMembers(
    size,
    async () => (await startEvalWorker(POOL_THREAD_SOURCE)).worker,
    async (w) => void (await w.terminate()),
  );
  return new FetchPool(members.map((w) => new ThreadMember(w)), seconds, rssBefore);
}
