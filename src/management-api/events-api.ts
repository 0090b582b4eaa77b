/**
 * `GET /api/projects/:project_id/events/`: stored events, newest first (or oldest first with
 * `orderBy=["timestamp"]`), with cursor pagination (`next` is an absolute URL, and null on the last
 * page), `offset`, and the filters `event`, `distinct_id`, `person_id`, `after`, `before`.
 * Parameters of PostHog's that Hedgerow cannot honour yet (`properties`, any other `orderBy`,
 * `select`/`where`) answer 400 rather than be ignored; `action_id` matches nothing, as for an
 * action PostHog does not have.
 * `GET …/events/:id/`: one event by UUID (any form Python's `uuid.UUID` reads, as PostHog).
 * The log is read in the worker pool (src/pool/scan-pool.ts), never on the thread that serves capture.
 */
import { isoparseMs } from '../compat/dateutil-isoparse.js';
import { eventApiTimestamp } from '../compat/iso-micros.js';
import { parseDateMs } from '../compat/parse-date.js';
import { canonicalUuid } from '../compat/python-parse.js';
import { relativeDateParse } from '../compat/relative-date.js';
import { catalogueError, HedgerowError } from '../errors.js';
import type { StoredEvent } from '../ingest/types.js';
import { withGroupIndexes } from '../persons/group-event.js';
import type { EventsPageQuery } from '../persons/person-events-query.js';
import { parsePersonRef } from '../persons/person-ref.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { AuthStore } from '../store/auth-store.js';
import type { GroupReader } from '../store/group-store.js';
import type { PersonReader } from '../store/person-store.js';
import { decodeCursor, type EventsOrder } from '../store/list-events.js';
import { absoluteUrl, projectRequest } from '../http/api-request.js';
import { refusePropertyFilter } from './property-filter-param.js';
import { json } from '../http/respond.js';
import type { Router } from '../http/router.js';
import type { HttpRequest } from '../http/types.js';

const DEFAULT_LIMIT = 100;
const FUTURE_SLACK_MS = 5000;
const MAX_LIMIT = 1000;

interface EventsApiDeps {
  auth: AuthStore;
  /** The project's group type indexes: events are answered with their `$group_<index>`. */
  groups: Pick<GroupReader, 'typeIndexes'>;
  /** The persons of listed events' distinct ids (each event's `person`). */
  persons: Pick<PersonReader, 'byDistinctId' | 'distinctIdsOf'>;
  /** Reads of the log, in the worker pool (throws 503 `not_ready` until it runs). */
  scans: () => ScanPool;
}

export function addEventsApiRoutes(router: Router, deps: EventsApiDeps): void {
  router.add(['GET'], '/api/projects/:project_id/events', 'api:events', async (req, params) => {
    const { query, project } = projectRequest(deps.auth, req, params, 'query:read');
    const list = listQuery(project.id, query);
    if (query.get('action_id')) return json(200, { next: null, results: [] }); // Hedgerow has no actions
    const page = await deps.scans().eventsPage(list);
    const render = rendererFor(deps, project.id);
    const person = personSummaries(deps, project.id);
    return json(200, {
      next: page.nextCursor ? nextUrl(req, query, page.nextCursor) : null,
      results: page.events.map((e) => ({ ...render(e), person: person(e.distinct_id) })),
    });
  });
  router.add(['GET'], '/api/projects/:project_id/events/:id', 'api:event', async (req, params) => {
    const { project } = projectRequest(deps.auth, req, params, 'query:read');
    const raw = params.id ?? '';
    const uuid = canonicalUuid(raw);
    if (uuid === undefined) throw new HedgerowError('HR_EVENT_UUID_INVALID');
    const found = await deps.scans().eventByUuid(project.id, uuid);
    if (!found) throw catalogueError('HR_EVENT_NOT_FOUND', { uuid: raw });
    // PostHog's retrieve passes its serializer no persons: `person` is null there.
    return json(200, { ...rendererFor(deps, project.id)(found), person: null });
  });
}

/**
 * A listed event's `person`, as PostHog's events list gives it (`ClickhouseEventSerializer.get_person`):
 * whether identified, the person's first distinct id only, and of its properties only `email`,
 * `name` and `username`; null when the distinct id has no person. Looked up once per distinct id.
 */
function personSummaries(deps: EventsApiDeps, projectId: number): (distinctId: string) => Record<string, unknown> | null {
  const known = new Map<string, Record<string, unknown> | null>();
  return (distinctId) => {
    let summary = known.get(distinctId);
    if (summary === undefined) {
      const person = deps.persons.byDistinctId(projectId, distinctId);
      summary =
        person === undefined
          ? null
          : {
              is_identified: person.is_identified,
              distinct_ids: deps.persons.distinctIdsOf(projectId, person.id).slice(0, 1),
              properties: Object.fromEntries(
                SUMMARY_PROPERTIES.filter((k) => Object.hasOwn(person.properties, k)).map((k) => [k, person.properties[k]]),
              ),
            };
      known.set(distinctId, summary);
    }
    return summary;
  };
}

const SUMMARY_PROPERTIES = ['email', 'name', 'username'];

function rendererFor(deps: EventsApiDeps, projectId: number): (e: StoredEvent) => Record<string, unknown> {
  const indexes = deps.groups.typeIndexes(projectId);
  return (e) => renderEvent(withGroupIndexes(e, indexes));
}

function renderEvent(e: StoredEvent): Record<string, unknown> {
  return {
    id: e.uuid,
    event: e.event,
    distinct_id: e.distinct_id,
    properties: e.properties,
    timestamp: eventApiTimestamp(e.timestamp),
    created_at: e.created_at,
    elements: [],
    elements_chain: '',
  };
}

function listQuery(projectId: number, q: URLSearchParams): EventsPageQuery {
  refuseUnsupported(q);
  const out: EventsPageQuery = { projectId, limit: DEFAULT_LIMIT, lookAhead: true, order: listOrder(q.get('orderBy')) };
  const limit = q.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    // `limit=0` is an empty page, as PostHog answers it (docs/compatibility.md#events-list).
    if (!Number.isInteger(n) || n < 0) throw catalogueError('HR_QUERY_NEGATIVE_INTEGER', { name: 'limit' }, 'limit');
    out.limit = Math.min(n, MAX_LIMIT);
  }
  const offset = q.get('offset');
  if (offset) {
    const n = Number(offset);
    if (!Number.isSafeInteger(n) || n < 0) throw catalogueError('HR_QUERY_NEGATIVE_INTEGER', { name: 'offset' }, 'offset');
    out.offset = n;
  }
  const event = q.get('event');
  if (event) out.event = event;
  const distinctId = q.get('distinct_id');
  if (distinctId) out.distinctIds = [distinctId];
  const personId = q.get('person_id');
  if (personId) {
    const ref = parsePersonRef(personId);
    if (ref === 'invalid') throw new HedgerowError('HR_EVENTS_PERSON_ID_INVALID');
    if (ref === 'not_found')
      out.distinctIds = []; // an id no person can have: no event matches
    else out.person = ref;
  }
  const after = q.get('after');
  if (after) out.afterMs = parseInstant(after, 'after');
  const before = q.get('before');
  // Without a `before`, PostHog lists events up to 5 s from now (`query_events_list`): events
  // dated ahead by a client's clock (kept up to 23 h ahead) wait until their time comes.
  out.beforeMs = before ? parseInstant(before, 'before') : Date.now() + FUTURE_SLACK_MS;
  const cursor = q.get('cursor');
  if (cursor) {
    try {
      decodeCursor(cursor);
    } catch {
      throw new HedgerowError('HR_EVENTS_CURSOR_INVALID');
    }
    out.cursor = cursor;
  }
  return out;
}

/** `orderBy`: `["-timestamp"]` (PostHog's default) or `["timestamp"]`; Hedgerow orders by receipt. */
function listOrder(orderBy: string | null): EventsOrder {
  if (!orderBy) return 'newest';
  let order: unknown;
  try {
    order = JSON.parse(orderBy);
  } catch {
    throw new HedgerowError('HR_EVENTS_ORDER_NOT_A_LIST');
  }
  if (Array.isArray(order) && order.length === 1 && (order[0] === '-timestamp' || order[0] === 'timestamp')) {
    return order[0] === 'timestamp' ? 'oldest' : 'newest';
  }
  throw new HedgerowError('HR_EVENTS_ORDER_UNSUPPORTED');
}

/** PostHog parameters that would change the answer and that Hedgerow does not implement. */
function refuseUnsupported(q: URLSearchParams): void {
  refusePropertyFilter(q, 'events list');
  for (const name of ['select', 'where']) {
    if (q.get(name)) throw catalogueError('HR_QUERY_UNSUPPORTED', { name, list: 'events list' }, name);
  }
}

/**
 * What PostHog reads (dateutil's `isoparse`, then a relative date such as `-7d`;
 * `posthog/models/event/query_event_list.py`), and the capture date forms; UTC without an offset.
 */
function parseInstant(s: string, attr: string): number {
  const ms = isoparseMs(s) ?? parseDateMs(s) ?? relativeDateParse(s, Date.now());
  if (ms === undefined) {
    throw catalogueError('HR_QUERY_NOT_A_DATE', { name: attr }, attr);
  }
  return ms;
}

function nextUrl(req: HttpRequest, q: URLSearchParams, cursor: string): string {
  const next = new URLSearchParams(q);
  next.delete('personal_api_key');
  next.delete('offset'); // the cursor is past the events passed over
  next.set('cursor', cursor);
  return absoluteUrl(req, next);
}
