/**
 * Project tokens (`phc_…`) and personal API keys (`phx_…`): generation, hashing, masking.
 * Personal keys are secrets and are stored only as a SHA-256 hash, as PostHog stores them.
 */
import { createHash, randomBytes } from 'node:crypto';

const PROJECT_TOKEN_PREFIX = 'phc_';
const PERSONAL_KEY_PREFIX = 'phx_';

/** 32 random bytes, URL-safe base64 (43 characters), like PostHog's generate_random_token. */
function randomToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
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

export function isProjectToken(s: string): boolean {
  return /^phc_[A-Za-z0-9_-]{10,60}$/.test(s);
}
