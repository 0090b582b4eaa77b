/**
 * The events API's side of the worker pool. A page is read from the log in slices, each one a
 * pool task that scans for at most `SLICE_MS`: the main thread (which acknowledges every capture)
 * never scans, and a worker interleaves capture and flag tasks between slices. A page that has
 * not filled after `PAGE_BUDGET_MS` is answered with the events found so far and a `next` cursor
 * from where the scan stopped (a full scan of a few million events takes seconds), so a request
 * never waits long and following `next` still reaches every event. A lookup by UUID has no `next`
 * to give, so it reads on until it finds the event or the log ends.
 */
import type { EventsPage, ListEventsQuery, ListedEvent } from '../store/list-events.js';
import type { WorkerPool } from './worker-pool.js';

const SLICE_MS = 10;
const PAGE_BUDGET_MS = 1000;

export interface EventsPoolOptions {
  sliceMs?: number;
  pageBudgetMs?: number;
}

export class EventsPool {
  private readonly sliceMs: number;
  private readonly pageBudgetMs: number;

  constructor(
    private readonly pool: WorkerPool,
    opts: EventsPoolOptions = {},
  ) {
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    this.pageBudgetMs = opts.pageBudgetMs ?? PAGE_BUDGET_MS;
  }

  /** The event with this UUID (canonical form): the whole log is read if need be, slice by slice. */
  async find(projectId: number, uuid: string): Promise<ListedEvent | undefined> {
    const { events } = await this.list({ projectId, uuid, limit: 1 }, Infinity);
    return events[0];
  }

  async list(q: ListEventsQuery, budgetMs = this.pageBudgetMs): Promise<{ events: ListedEvent[]; nextCursor: string | undefined }> {
    const until = Date.now() + budgetMs;
    const events: ListedEvent[] = [];
    let cursor = q.cursor;
    for (;;) {
      const query: ListEventsQuery = { ...q, limit: q.limit - events.length };
      if (cursor !== undefined) query.cursor = cursor;
      const slice = await this.pool.run<EventsPage>({ kind: 'events', query, sliceMs: this.sliceMs });
      events.push(...slice.events);
      if (slice.stop !== 'budget' || Date.now() >= until) return { events, nextCursor: slice.nextCursor };
      cursor = slice.nextCursor;
    }
  }
}
