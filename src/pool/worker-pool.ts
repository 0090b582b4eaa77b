/**
 * The one Piscina pool of CPU workers (workers/pool-worker.ts), shared by capture
 * (ingest-pool.ts) and flag evaluation (flags-pool.ts). Each worker opens the store once.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { THREAD_RESOURCE_LIMITS } from '../util/thread-heap.js';
import type { PongResult, PoolTask, PoolTaskResult, WorkerSetup } from './tasks.js';

export interface WorkerPoolOptions {
  setup: WorkerSetup;
  workers: number;
  tasksPerWorker: number;
  /** How long a worker with nothing to do lives on (default 30 s). */
  idleTimeoutMs?: number;
}

const POOL_IDLE_TIMEOUT_MS = 30_000;

export class WorkerPool {
  private readonly piscina: Piscina<PoolTask, PoolTaskResult>;
  /** Tasks that may run at once (workers × tasks per worker). */
  readonly capacity: number;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.capacity = opts.workers * opts.tasksPerWorker;
    this.piscina = new Piscina({
      filename: fileURLToPath(new URL('../../workers/pool-worker.js', import.meta.url)),
      // Started on demand, ended after an idle spell: an idle daemon holds no pool worker (each
      // held ~20 MiB), and a worker starts in ~0.1 s (docs/decisions.md#pool-workers-end-when-idle).
      minThreads: 0,
      maxThreads: opts.workers,
      concurrentTasksPerWorker: opts.tasksPerWorker,
      idleTimeout: opts.idleTimeoutMs ?? POOL_IDLE_TIMEOUT_MS,
      // Message-based wake-ups: 'sync' (Atomics.wait between tasks) measured no better here
      // (/batch/ 187k vs 210k events/s, /capture/ 19.7k vs 24.7k req/s, one 6 s round each).
      atomics: 'disabled',
      workerData: opts.setup,
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
  }

  /** Resolves once the workers have started and opened the store, with their answers (they end when idle). */
  ready(): Promise<PongResult[]> {
    return Promise.all(Array.from({ length: this.opts.workers }, () => this.run<PongResult>({ kind: 'ping' })));
  }

  run<R extends PoolTaskResult>(task: PoolTask, transferList?: ArrayBuffer[]): Promise<R> {
    return this.piscina.run(task, transferList ? { transferList } : undefined) as Promise<R>;
  }

  /** Workers running now (none after an idle spell). */
  get threads(): number {
    return this.piscina.threads.length;
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
