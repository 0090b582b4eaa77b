/**
 * Limits, names and defaults in one place, each with a one-line reason.
 * Values a deployment may tune live in the configuration (src/config); these are fixed.
 */

/**
 * Decompressed budget = 5x the wire cap, as PostHog runs it in production (PostHog/posthog
 * `rust/capture/tests/integration_wire_body_limits.rs`).
 */
export const DECOMPRESSED_RATIO = 5;

/**
 * Past `DECODED_FLOOR_BYTES`, a gzip or lz64 payload may decode to at most this many times its own
 * size. SDK batches stay well under it (posthog-js events, uuids and all, gzip 20-70:1), while
 * deflate reaches 1032:1 and lz-string grows quadratically: without it a 50 KB body could make a
 * worker build and parse 100 MiB.
 */
export const MAX_DECODED_RATIO = 100;

/** Any compressed payload may decode to this much, whatever its ratio (~1,000 events of a large SDK batch). */
export const DECODED_FLOOR_BYTES = 4 * 1024 * 1024;

/**
 * One event, encoded, may not exceed 1 MiB: PostHog forwards each event as one Kafka message and
 * its producer is bounded by Kafka's default message.max.bytes (1 MB).
 */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** distinct_id is cut to 200 characters (capture-rs extract_distinct_id_checked). */
export const MAX_DISTINCT_ID_CHARS = 200;

/**
 * PostHog's person tables hold distinct ids in a varchar(400): a merge refuses a longer
 * `$anon_distinct_id` or alias, so no stored distinct id has more code points than this.
 */
export const MAX_MERGE_DISTINCT_ID_CODE_POINTS = 400;

/** PostHog's groups table keys are varchar(400); longer `$group_key`s drop the event. */
export const MAX_GROUP_KEY_CHARS = 400;

/** Experience-continuity hash keys: PostHog's `hash_key` column is a `varchar(400)`. */
export const MAX_HASH_KEY_CHARS = 400;

/** Event names are cut to 200 characters (ingestion sanitizeEventName). */
export const MAX_EVENT_NAME_CHARS = 200;

/**
 * The longest project token or personal API key an operator can bring: PostHog's `Team.api_token`
 * column is a `CharField(max_length=200)` (PostHog/posthog `posthog/models/team/team.py`).
 */
export const MAX_CARRIED_KEY_CHARS = 200;

/** Project tokens longer than 64 characters are malformed (capture-rs token.rs). */
export const MAX_TOKEN_CHARS = 64;

/** Timestamps over 23 hours ahead are clamped to now (docs/compatibility.md#timestamps). */
export const MAX_FUTURE_SKEW_MS = 23 * 60 * 60 * 1000;

/** JSON nesting deeper than this is refused before parsing, so a hostile body cannot exhaust the stack. */
export const MAX_JSON_DEPTH = 128;

/**
 * A connection must deliver a whole request head within this long of opening, or of its previous
 * answer. uWebSockets.js fixes it in its native code (`HTTP_IDLE_TIMEOUT_S` in uNetworking/uWebSockets
 * src/HttpContext.h; its timer ticks every 4 s, so the cut comes 8–12 s after) and closes without an
 * answer; the node:http backend uses the same value for its keep-alive and headers timeouts, and
 * answers 408.
 */
export const HTTP_HEAD_TIMEOUT_MS = 10_000;

/**
 * A request body may take this long in all, however steadily it arrives (node:http's default
 * `requestTimeout`); past it the request is answered 408 and its connection closed, so a client
 * trickling a byte at a time cannot hold a connection for ever.
 */
export const HTTP_REQUEST_TIMEOUT_MS = 300_000;

/**
 * A `/flags` or `/decide` evaluation spends at most this much time in V8-engine regex searches
 * (back-references, lookaround): each is bounded on its own (src/flags/bounded-backtracking.ts),
 * but a flag may hold a thousand of them; past it the evaluation stops as over its time budget.
 */
export const FLAGS_REGEX_ALLOWANCE_MS = 5;
