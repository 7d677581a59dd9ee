// A pool of workers that each fetch one page at a time: the "thread pool" of the chapter's
// traditional approach, and the article's process pool. The members are worker threads
// (thread-pool.ts) or child processes (process-pool.ts); this file hands out the jobs.
//
// Invariants: a member has at most one job in flight (it stands for a thread blocked in
// recv()); jobs start in order as members become idle; fetchAll resolves when every job has
// an answer (a failed fetch is an answer with `error`), so N jobs on P members take about
// ceil(N / P) round trips. Memory: a member that can tell its own memory (a process) reports
// it; for the others the pool compares this process's resident memory before the members
// started with its peak while they worked (sampled at every answer). A member that dies
// (its thread or process exits) answers its job, and every later one, with an error, so
// fetchAll still resolves.

import { inspect } from '../inspection';
import { announceProgramLoop, type InspectableProgramLoop, type ProgramLoopInspection, type ProgramLoopWorker } from '../program-loops';

export interface FetchJob {
  id: number;
  host: string;
  port: number;
  path: string;
}

export interface FetchReply {
  id: number;
  status?: number;
  bytes?: number;
  error?: string;
  /** Memory of the member that answered, when it can tell (processes do). */
  memory?: number;
}

/** What the pool needs from one member. */
export interface PoolMember {
  /** The member as the inspector lists it: a thread or process, its name, what it does now. */
  describe(): ProgramLoopWorker;
  send(job: FetchJob): void;
  /** Sets where the member's answers go. */
  onReply(listener: (reply: FetchReply) => void): void;
  /** The member's own memory (bytes), if it reports it. */
  memoryBytes(): number | null;
  close(): Promise<void>;
}

export class FetchPool implements InspectableProgramLoop {
  readonly members: readonly PoolMember[];
  private readonly withdraw: () => void;
  /** Seconds it took to start the members. */
  readonly startupSeconds: number;
  /** This process's resident memory before the members started. */
  private readonly rssBefore: number;
  private peakRss: number;

  constructor(members: readonly PoolMember[], startupSeconds: number, rssBefore: number) {
    this.members = members;
    this.startupSeconds = startupSeconds;
    this.rssBefore = rssBefore;
    this.peakRss = process.memoryUsage.rss();
    this.withdraw = announceProgramLoop(this);
  }

  /** The pool as the inspector shows it (runtime/program-loops.ts): each member and its job. */
  [inspect](): ProgramLoopInspection {
    const workers = this.members.map((m) => m.describe());
    const kind = workers[0]?.kind === 'process' ? 'processes' : 'threads';
    return {
      kind,
      title: `a pool of ${this.size} ${kind === 'processes' ? 'child processes' : 'worker threads'}, one blocking fetch at a time each`,
      running: () => null,
      ready: () => [],
      sockets: () => [],
      timers: () => [],
      workers: () => workers,
      notes: () => [],
    };
  }

  get size(): number {
    return this.members.length;
  }

  /** Fetches every path, one job per idle member at a time. */
  fetchAll(host: string, port: number, paths: readonly string[]): Promise<FetchReply[]> {
    const replies: FetchReply[] = new Array<FetchReply>(paths.length);
    if (paths.length === 0) return Promise.resolve(replies);
    return new Promise<FetchReply[]>((resolve) => {
      let next = 0;
      let answered = 0;
      const give = (member: PoolMember): void => {
        if (next >= paths.length) return;
        const id = next++;
        member.send({ id, host, port, path: paths[id]! });
      };
      for (const member of this.members) {
        member.onReply((reply) => {
          this.peakRss = Math.max(this.peakRss, process.memoryUsage.rss());
          replies[reply.id] = reply;
          answered++;
          if (answered === paths.length) resolve(replies);
          else give(member);
        });
      }
      for (const member of this.members) give(member);
    });
  }

  /** Memory per member: its own report when every member gives one, else this process's growth / size. */
  memoryPerMemberBytes(): number {
    const own = this.members.map((m) => m.memoryBytes());
    if (own.every((m): m is number => m !== null)) return own.reduce((a, b) => a + b, 0) / Math.max(1, own.length);
    return Math.max(0, this.peakRss - this.rssBefore) / Math.max(1, this.size);
  }

  async close(): Promise<void> {
    this.withdraw();
    await Promise.all(this.members.map((m) => m.close()));
  }
}

/**
 * The job bookkeeping every member shares: the job in flight, the listener, and what happens
 * when the member dies (the job in flight and every later one fail at once).
 */
export class MemberState {
  private listener: ((reply: FetchReply) => void) | null = null;
  private inFlight: number | null = null;
  private inFlightPath: string | null = null;
  private deathReason: string | null = null;

  onReply(listener: (reply: FetchReply) => void): void {
    this.listener = listener;
  }

  /** Sends a job through `post`, unless the member is dead. */
  send(job: FetchJob, post: (job: FetchJob) => void): void {
    if (this.deathReason !== null) {
      const reason = this.deathReason;
      setImmediate(() => this.listener?.({ id: job.id, error: reason }));
      return;
    }
    this.inFlight = job.id;
    this.inFlightPath = job.path;
    post(job);
  }

  /** The member answered. */
  replied(reply: FetchReply): void {
    this.inFlight = null;
    this.inFlightPath = null;
    this.listener?.(reply);
  }

  /** What the member does now, in words. */
  describe(): string {
    if (this.deathReason !== null) return `gone: ${this.deathReason}`;
    return this.inFlightPath === null ? 'idle, waiting for a job' : `fetching ${this.inFlightPath} (blocked until the page is in)`;
  }

  /** The member is gone; its job in flight fails. */
  died(reason: string): void {
    if (this.deathReason !== null) return;
    this.deathReason = reason;
    const id = this.inFlight;
    this.inFlight = null;
    this.inFlightPath = null;
    if (id !== null) this.listener?.({ id, error: reason });
  }
}

/** Starts `size` members at once; if any fails, closes the others and throws its error. */
export async function startMembers<T>(size: number, start: () => Promise<T>, close: (member: T) => Promise<void>): Promise<{ members: T[]; seconds: number }> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`a pool needs at least one member, got ${String(size)}`);
  const t0 = performance.now();
  const started = await Promise.allSettled(Array.from({ length: size }, start));
  const seconds = (performance.now() - t0) / 1000;
  const members = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(members.map(close));
    throw failure.reason;
  }
  return { members, seconds };
}
