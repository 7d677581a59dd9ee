// Starting a worker thread from a source string (see worker-sources.ts), the same way from
// the TypeScript sources and from a bundle.
//
// Invariants: the worker gets no execArgv of ours (under tsx the parent has `--import tsx`,
// which would load a TypeScript loader into every worker for nothing, slowing its start);
// `startEvalWorker` resolves once the worker has posted its first message (it is up and
// listening), and rejects if the worker fails or exits before that.

import { Worker, type TransferListItem } from 'node:worker_threads';

export interface StartedWorker<M> {
  readonly worker: Worker;
  /** The first message the worker posted. */
  readonly hello: M;
}

export function startEvalWorker<M>(source: string, workerData?: unknown, transferList?: readonly TransferListItem[]): Promise<StartedWorker<M>> {
  const worker = new Worker(source, { eval: true, execArgv: [], workerData, transferList: transferList ? [...transferList] : undefined });
  return new Promise<StartedWorker<M>>((resolve, reject) => {
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`worker thread exited with code ${code} before it was ready`));
    };
    const onMessage = (hello: M): void => {
      cleanup();
      resolve({ worker, hello });
    };
    const cleanup = (): void => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      worker.off('message', onMessage);
    };
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.once('message', onMessage);
  });
}
