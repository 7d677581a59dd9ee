// A pool of child processes, each fetching one page at a time (see fetch-pool.ts): the
// article's ProcessPoolExecutor. Each child is a fresh `node -e <source>`, so it works the
// same from the TypeScript sources and from a bundle.
//
// A child reports its own memory with every answer (PSS on Linux: pages shared with the other
// Node processes, such as the executable's code, are split between them; RSS elsewhere). The
// children get no NODE_OPTIONS of ours, so nothing but Node itself loads in them.

import { spawn, type ChildProcess } from 'node:child_process';
import { FetchPool, MemberState, startMembers, type FetchJob, type FetchReply, type PoolMember } from './fetch-pool';
import { collectGarbage } from './memory';
import type { ProgramLoopWorker } from '../program-loops';
import { POOL_PROCESS_SOURCE } from './worker-sources';

interface Hello {
  ready: true;
  memory: number;
}

class ProcessMember implements PoolMember {
  private readonly child: ChildProcess;
  private readonly state = new MemberState();
  private memory: number;

  constructor(child: ChildProcess, hello: Hello) {
    this.child = child;
    this.memory = hello.memory;
    child.on('message', (reply: FetchReply) => {
      if (typeof reply.memory === 'number') this.memory = Math.max(this.memory, reply.memory);
      this.state.replied(reply);
    });
    child.on('exit', (code, signal) => this.state.died(`fetch process exited (${signal ?? String(code)})`));
    child.on('error', (error) => this.state.died(`fetch process failed: ${error.message}`));
  }

  describe(): ProgramLoopWorker {
    return { kind: 'process', name: `process ${this.child.pid ?? '?'}`, state: this.state.describe() };
  }

  send(job: FetchJob): void {
    this.state.send(job, (j) => this.child.send(j));
  }

  onReply(listener: (reply: FetchReply) => void): void {
    this.state.onReply(listener);
  }

  memoryBytes(): number {
    return this.memory;
  }

  close(): Promise<void> {
    return stopChild(this.child);
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // Without its IPC channel the child has nothing left to wait for and exits by itself.
    if (child.connected) child.disconnect();
    else child.kill();
  });
}

function startChild(): Promise<{ child: ChildProcess; hello: Hello }> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['-e', POOL_PROCESS_SOURCE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`fetch process exited (${String(code)}) before it was ready`));
    child.once('error', reject);
    child.once('exit', onExit);
    child.once('message', (hello: Hello) => {
      child.off('error', reject);
      child.off('exit', onExit);
      resolve({ child, hello });
    });
  });
}

export async function startProcessPool(size: number): Promise<FetchPool> {
  collectGarbage();
  const rssBefore = process.memoryUsage.rss();
  const { members, seconds } = await startMembers(size, startChild, (m) => stopChild(m.child));
  return new FetchPool(members.map((m) => new ProcessMember(m.child, m.hello)), seconds, rssBefore);
}
