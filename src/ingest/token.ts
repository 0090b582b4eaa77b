/**
 * Where the project token is found and what a well-formed one looks like
 * (docs/compatibility.md#project-key; PostHog/posthog `rust/capture/src/utils.rs`, `token.rs`).
 */

import { HedgerowError } from '../errors.js';
import { MAX_TOKEN_CHARS } from '../limits.js';
import type { ParsedBody, RawEvent } from './parse-body.js';

type TokenShapeProblem = 'empty' | 'too_long' | 'not_ascii' | 'personal_api_key' | 'null_byte';

export type TokenShape = { ok: true; token: string } | { ok: false; reason: TokenShapeProblem };

const PERSONAL_API_KEY_PREFIX = 'phx_';

/** An event's own token: top-level `token`, `$token`, `api_key`, then `properties.token` (strings only). */
function eventToken(event: RawEvent): string | undefined {
  if (typeof event.token === 'string') return event.token;
  if (typeof event.$token === 'string') return event.$token;
  if (typeof event.api_key === 'string') return event.api_key;
  const props = event.properties;
  if (typeof props === 'object' && props !== null) {
    const token = (props as Record<string, unknown>).token;
    if (typeof token === 'string') return token;
  }
  return undefined;
}

/**
 * The request's token, untrimmed. The batch-level key wins outright; otherwise every event that
 * carries a token must carry the same one (else `HR_INCONSISTENT_API_KEYS`), and events without one
 * are accepted under it. `undefined` when there is none.
 */
export function extractToken(parsed: Pick<ParsedBody, 'events' | 'batchToken'>): string | undefined {
  if (parsed.batchToken !== undefined) return parsed.batchToken;
  let found: string | undefined;
  for (const event of parsed.events) {
    const token = eventToken(event);
    if (token === undefined) continue;
    if (found === undefined) found = token;
    else if (token !== found) throw new HedgerowError('HR_INCONSISTENT_API_KEYS');
  }
  return found;
}

/**
 * Trims surrounding whitespace, then rejects, in capture-rs's order: empty, longer than 64
 * characters, non-ASCII, a personal API key (`phx_`), a NUL byte.
 */
export function validateTokenShape(token: string): TokenShape {
  const trimmed = token.trim();
  if (trimmed.length === 0) return { ok: false, reason: 'empty' };
  if (trimmed.length > MAX_TOKEN_CHARS) return { ok: false, reason: 'too_long' };
  for (let i = 0; i < trimmed.length; i++) {
    if (trimmed.charCodeAt(i) > 0x7f) return { ok: false, reason: 'not_ascii' };
  }
  if (trimmed.startsWith(PERSONAL_API_KEY_PREFIX)) return { ok: false, reason: 'personal_api_key' };
  if (trimmed.includes('\0')) return { ok: false, reason: 'null_byte' };
  return { ok: true, token: trimmed };
}
