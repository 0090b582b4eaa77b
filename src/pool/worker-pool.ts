/**
 * The one Piscina pool of CPU workers (workers/pool-worker.ts), shared by capture
 * (ingest-pool.ts) and flag evaluation (flags-pool.ts). Each worker opens the store once.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { PongResult, PoolTask, PoolTaskResult, WorkerSetup } from './tasks.js';

export interface WorkerPoolOptions {
  setup: WorkerSetup;
  workers: number;
  tasksPerWorker: number;
}

export class WorkerPool {
  private readonly piscina: Piscina<PoolTask, PoolTaskResult>;
  /** Tasks that may run at once (workers × tasks per worker). */
  readonly capacity: number;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.capacity = opts.workers * opts.tasksPerWorker;
    this.piscina = new Piscina({
      filename: fileURLToPath(new URL('../../workers/pool-worker.js', import.meta.url)),
      minThreads: opts.workers,
      maxThreads: opts.workers,
      concurrentTasksPerWorker: opts.tasksPerWorker,
      idleTimeout: Infinity,
      // Message-based wake-ups: 'sync' (Atomics.wait between tasks) measured no better here
      // (/batch/ 187k vs 210k events/s, /capture/ 19.7k vs 24.7k req/s, one 6 s round each).
      atomics: 'disabled',
      workerData: opts.setup,
    });
  }

  /** Resolves once every worker has started and opened the store, with the workers' answers. */
  ready(): Promise<PongResult[]> {
    return Promise.all(Array.from({ length: this.opts.workers }, () => this.run<PongResult>({ kind: 'ping' })));
  }

  run<R extends PoolTaskResult>(task: PoolTask, transferList?: ArrayBuffer[]): Promise<R> {
    return this.piscina.run(task, transferList ? { transferList } : undefined) as Promise<R>;
  }

  /** Tasks queued inside Piscina. */
  get queueSize(): number {
    return this.piscina.queueSize;
  }

  get utilization(): number {
    return this.piscina.utilization;
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
