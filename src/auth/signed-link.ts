/**
 * Signed links to a dashboard's HTML page, so it can be opened in a browser without a personal
 * API key in the URL: `?exp=<unix seconds>&sig=<HMAC-SHA256 of "dashboard:<project>:<id>:<exp>",
 * base64url>`, keyed by a random secret kept in the data directory. Expired or altered links fail.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeRandomBytes } from '../util/write-context.js';
import type { StoreDatabases } from '../store/open-store.js';

const SECRET_KEY = 'dashboard_link_secret';

/** How long a link the API hands out stays valid. */
export const LINK_TTL_SECONDS = 7 * 24 * 3600;

/** The data directory's link secret, created on first use (one transaction: two processes agree). */
export function linkSecret(dbs: StoreDatabases): Buffer {
  const read = () => dbs.meta.get(SECRET_KEY) as string | undefined;
  const existing = read();
  if (existing !== undefined) return Buffer.from(existing, 'hex');
  const hex = dbs.root.transactionSync(() => {
    const current = read();
    if (current !== undefined) return current;
    const fresh = writeRandomBytes(32).toString('hex');
    dbs.meta.putSync(SECRET_KEY, fresh);
    return fresh;
  });
  return Buffer.from(hex, 'hex');
}

/** The link secret when the store has one (a cluster node's comes with the cluster's first start). */
export function storedLinkSecret(dbs: StoreDatabases): Buffer | undefined {
  const hex = dbs.meta.get(SECRET_KEY) as string | undefined;
  return hex === undefined ? undefined : Buffer.from(hex, 'hex');
}

export function signDashboardLink(secret: Buffer, projectId: number, dashboardId: number, exp: number): string {
  return createHmac('sha256', secret).update(`dashboard:${projectId}:${dashboardId}:${exp}`).digest('base64url');
}

/** The page path with a signature valid until `nowSeconds + ttl`. */
export function signedDashboardPath(
  secret: Buffer,
  projectId: number,
  dashboardId: number,
  nowSeconds: number,
  ttl = LINK_TTL_SECONDS,
): string {
  const exp = Math.floor(nowSeconds) + ttl;
  const sig = signDashboardLink(secret, projectId, dashboardId, exp);
  return `/project/${projectId}/dashboard/${dashboardId}?exp=${exp}&sig=${sig}`;
}

export function verifyDashboardLink(
  secret: Buffer,
  projectId: number,
  dashboardId: number,
  exp: string,
  sig: string,
  nowSeconds: number,
): boolean {
  if (!/^\d{1,12}$/.test(exp) || Number(exp) < nowSeconds) return false;
  const expected = Buffer.from(signDashboardLink(secret, projectId, dashboardId, Number(exp)));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
