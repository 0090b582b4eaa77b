/**
 * Project tokens (`phc_…`) and personal API keys (`phx_…`): generation, hashing, masking, and the
 * rules for ones an operator brings.
 * Personal keys are secrets and are stored only as a SHA-256 hash, as PostHog stores them.
 */
import { createHash } from 'node:crypto';
import { MAX_CARRIED_KEY_CHARS } from '../limits.js';
import { writeRandomBytes } from '../util/write-context.js';

const PROJECT_TOKEN_PREFIX = 'phc_';
const PERSONAL_KEY_PREFIX = 'phx_';

/** 32 random bytes, URL-safe base64 (43 characters), like PostHog's generate_random_token. */
function randomToken(prefix: string): string {
  return prefix + writeRandomBytes(32).toString('base64url');
}

export function generateProjectToken(): string {
  return randomToken(PROJECT_TOKEN_PREFIX);
}

export function generatePersonalApiKey(): string {
  return randomToken(PERSONAL_KEY_PREFIX);
}

export function hashPersonalApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What PostHog shows of a key after creation: its prefix and last four characters. */
export function maskPersonalApiKey(secret: string): string {
  return `${secret.slice(0, 4)}...${secret.slice(-4)}`;
}

/** Whitespace or a control character (C0, DEL, C1, and Unicode's other spaces). */
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/**
 * Why a project token given by an operator cannot be used, or undefined when it can. Any token
 * PostHog can hold is taken as given (`phc_` + 43 characters today, 43 characters without a prefix
 * for older projects, short fixtures such as `phc_test`): see docs/compatibility.md#project-tokens.
 */
export function projectTokenProblem(token: string): string | undefined {
  const common = carriedKeyProblem('a project API token', token);
  if (common !== undefined) return common;
  if (token.startsWith(PERSONAL_KEY_PREFIX)) {
    return `a project API token cannot start with "${PERSONAL_KEY_PREFIX}": that prefix marks a personal API key, and capture and /flags tell the two apart by it`;
  }
  return undefined;
}

/** Why a personal API key given by an operator cannot be used, or undefined when it can. */
export function personalApiKeyProblem(secret: string): string | undefined {
  const common = carriedKeyProblem('a personal API key', secret);
  if (common !== undefined) return common;
  if (!secret.startsWith(PERSONAL_KEY_PREFIX) || secret.length === PERSONAL_KEY_PREFIX.length) {
    return `a personal API key must start with "${PERSONAL_KEY_PREFIX}" and go on after it: capture and /flags recognise personal keys by that prefix`;
  }
  return undefined;
}

function carriedKeyProblem(what: string, value: string): string | undefined {
  if (value.length === 0) return `${what} cannot be empty`;
  const chars = [...value].length;
  if (chars > MAX_CARRIED_KEY_CHARS) {
    return `${what} holds at most ${MAX_CARRIED_KEY_CHARS} characters, as PostHog's does; this one has ${chars}`;
  }
  if (WHITESPACE_OR_CONTROL.test(value)) {
    return `${what} cannot hold whitespace or control characters: SDKs and HTTP headers would trim or mangle them`;
  }
  return undefined;
}
