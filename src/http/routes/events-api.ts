/**
 * `GET /api/projects/:project_id/events/`: stored events, newest first, with cursor pagination
 * (`next` is an absolute URL, and null on the last page) and the filters `event`, `distinct_id`,
 * `after`, `before`.
 * `GET …/events/:id/`: one event by UUID (any form Python's `uuid.UUID` reads, as PostHog).
 * The log is read in the worker pool (src/pool/scan-pool.ts), never on the thread that serves capture.
 */
import { HedgerowError } from '../../errors.js';
import type { StoredEvent } from '../../ingest/types.js';
import { canonicalUuid } from '../../persons/person-list-query.js';
import type { ScanPool } from '../../pool/scan-pool.js';
import type { AuthStore } from '../../store/auth-store.js';
import type { ListEventsQuery } from '../../store/list-events.js';
import { decodeCursor } from '../../store/list-events.js';
import { absoluteUrl, projectRequest } from '../api-request.js';
import { json } from '../respond.js';
import type { Router } from '../router.js';
import type { HttpRequest } from '../types.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

interface EventsApiDeps {
  auth: AuthStore;
  /** Reads of the log, in the worker pool (throws 503 `not_ready` until it runs). */
  scans: () => ScanPool;
}

export function addEventsApiRoutes(router: Router, deps: EventsApiDeps): void {
  router.add(['GET'], '/api/projects/:project_id/events', 'api:events', async (req, params) => {
    const { query, project } = projectRequest(deps.auth, req, params, 'query:read');
    const list = listQuery(project.id, query);
    const page = await deps.scans().eventsPage(list);
    return json(200, {
      next: page.nextCursor ? nextUrl(req, query, page.nextCursor) : null,
      results: page.events.map(({ event }) => renderEvent(event)),
    });
  });
  router.add(['GET'], '/api/projects/:project_id/events/:id', 'api:event', async (req, params) => {
    const { project } = projectRequest(deps.auth, req, params, 'query:read');
    const raw = params.id ?? '';
    const uuid = canonicalUuid(raw);
    if (uuid === undefined) throw new HedgerowError('HR_EVENT_UUID_INVALID');
    const found = await deps.scans().eventByUuid(project.id, uuid);
    if (!found) throw new HedgerowError('HR_NOT_FOUND', `No events exist for event UUID ${raw}`);
    return json(200, renderEvent(found));
  });
}

function renderEvent(e: StoredEvent): Record<string, unknown> {
  return {
    id: e.uuid,
    event: e.event,
    distinct_id: e.distinct_id,
    properties: e.properties,
    timestamp: e.timestamp,
    created_at: e.created_at,
    elements: [],
    elements_chain: '',
  };
}

function listQuery(projectId: number, q: URLSearchParams): ListEventsQuery {
  const out: ListEventsQuery = { projectId, limit: DEFAULT_LIMIT, lookAhead: true };
  const limit = q.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1) throw new HedgerowError('HR_INVALID_QUERY', 'limit must be a positive integer', 'limit');
    out.limit = Math.min(n, MAX_LIMIT);
  }
  const event = q.get('event');
  if (event) out.event = event;
  const distinctId = q.get('distinct_id');
  if (distinctId) out.distinctId = distinctId;
  const after = q.get('after');
  if (after) out.afterMs = parseInstant(after, 'after');
  const before = q.get('before');
  if (before) out.beforeMs = parseInstant(before, 'before');
  const cursor = q.get('cursor');
  if (cursor) {
    try {
      decodeCursor(cursor);
    } catch {
      throw new HedgerowError('HR_INVALID_QUERY', 'cursor is not one this server produced', 'cursor');
    }
    out.cursor = cursor;
  }
  return out;
}

function parseInstant(s: string, attr: string): number {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw new HedgerowError('HR_INVALID_QUERY', `${attr} must be an ISO-8601 date-time`, attr);
  return ms;
}

function nextUrl(req: HttpRequest, q: URLSearchParams, cursor: string): string {
  const next = new URLSearchParams(q);
  next.delete('personal_api_key');
  next.set('cursor', cursor);
  return absoluteUrl(req, next);
}
