/**
 * The V8 heap limits of the daemon's worker threads (front ends, pool, person processor). Under a
 * steady allocation rate V8 grows each isolate's young generation up to 16 MiB per semi-space
 * and keeps it: with four or more worker isolates that was most of the daemon's anonymous memory
 * after a load. A bounded young generation trades some scavenges for that memory
 * (docs/decisions.md#worker-threads-young-generations-bounded).
 */
import type { ResourceLimits } from 'node:worker_threads';

/** `resourceLimits` for every worker thread the daemon starts: 4 MiB semi-spaces. */
export const THREAD_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 12 };
