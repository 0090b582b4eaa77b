import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkSecret, LINK_TTL_SECONDS, signDashboardLink, signedDashboardPath, verifyDashboardLink } from '../../src/auth/signed-link.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';

const SECRET = Buffer.alloc(32, 7);
const OTHER_SECRET = Buffer.alloc(32, 8);
const NOW = 1_800_000_000;

/** The `exp` and `sig` query values of a signed path. */
function queryOf(p: string): { exp: string; sig: string } {
  const url = new URL(p, 'http://localhost');
  return { exp: url.searchParams.get('exp') ?? '', sig: url.searchParams.get('sig') ?? '' };
}

describe('signed dashboard links', () => {
  it('verifies a link it signed until it expires', () => {
    const exp = NOW + 60;
    const sig = signDashboardLink(SECRET, 1, 2, exp);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp), sig, NOW)).toBe(true);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp), sig, exp)).toBe(true);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp), sig, exp + 0.5)).toBe(false);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp), sig, exp + 1)).toBe(false);
  });

  it('signs with base64url HMAC-SHA256 (43 characters, no padding), deterministically', () => {
    const sig = signDashboardLink(SECRET, 1, 2, NOW);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signDashboardLink(SECRET, 1, 2, NOW)).toBe(sig);
    expect(signDashboardLink(OTHER_SECRET, 1, 2, NOW)).not.toBe(sig);
  });

  it('rejects an altered exp, signature, project or dashboard', () => {
    const exp = NOW + 60;
    const sig = signDashboardLink(SECRET, 1, 2, exp);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp + 1), sig, NOW)).toBe(false);
    expect(verifyDashboardLink(SECRET, 1, 3, String(exp), sig, NOW)).toBe(false);
    expect(verifyDashboardLink(SECRET, 2, 2, String(exp), sig, NOW)).toBe(false);
    // Project and dashboard ids are separated: 1/23 is not 12/3.
    const sig123 = signDashboardLink(SECRET, 1, 23, exp);
    expect(verifyDashboardLink(SECRET, 12, 3, String(exp), sig123, NOW)).toBe(false);
    expect(verifyDashboardLink(OTHER_SECRET, 1, 2, String(exp), sig, NOW)).toBe(false);
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    expect(verifyDashboardLink(SECRET, 1, 2, String(exp), flipped, NOW)).toBe(false);
  });

  it('rejects an exp that is not a plain number of seconds', () => {
    const exp = NOW + 60;
    const sig = signDashboardLink(SECRET, 1, 2, exp);
    for (const bad of ['', 'abc', `${exp}.0`, `+${exp}`, ` ${exp}`, `${exp} `, '1e12', '-1', '1234567890123']) {
      expect(verifyDashboardLink(SECRET, 1, 2, bad, sig, NOW)).toBe(false);
    }
  });

  it('rejects a signature of another length without throwing', () => {
    const exp = NOW + 60;
    const sig = signDashboardLink(SECRET, 1, 2, exp);
    for (const bad of ['', 'x', sig.slice(1), `${sig}A`, `${sig}${sig}`, 'é'.repeat(43), `${sig.slice(0, 42)}é`]) {
      expect(() => verifyDashboardLink(SECRET, 1, 2, String(exp), bad, NOW)).not.toThrow();
      expect(verifyDashboardLink(SECRET, 1, 2, String(exp), bad, NOW)).toBe(false);
    }
  });

  it('builds the page path with exp = now + ttl and its signature', () => {
    const p = signedDashboardPath(SECRET, 5, 9, NOW + 0.9, 120);
    const sig = signDashboardLink(SECRET, 5, 9, NOW + 120);
    expect(p).toBe(`/project/5/dashboard/9?exp=${NOW + 120}&sig=${sig}`);
    const { exp, sig: got } = queryOf(p);
    expect(got).toBe(sig);
    expect(verifyDashboardLink(SECRET, 5, 9, exp, got, NOW + 120)).toBe(true);
    expect(verifyDashboardLink(SECRET, 5, 9, exp, got, NOW + 121)).toBe(false);
  });

  it('makes links valid for a week by default', () => {
    expect(LINK_TTL_SECONDS).toBe(604_800);
    const { exp, sig } = queryOf(signedDashboardPath(SECRET, 1, 1, NOW));
    expect(exp).toBe(String(NOW + LINK_TTL_SECONDS));
    expect(verifyDashboardLink(SECRET, 1, 1, exp, sig, NOW + LINK_TTL_SECONDS)).toBe(true);
    expect(verifyDashboardLink(SECRET, 1, 1, exp, sig, NOW + LINK_TTL_SECONDS + 1)).toBe(false);
  });
});

describe('linkSecret', () => {
  const dirs: string[] = [];
  const opened: StoreDatabases[] = [];

  function open(dir: string): StoreDatabases {
    const dbs = openStore({ dataDir: dir, sync: 'none' });
    opened.push(dbs);
    return dbs;
  }

  afterEach(async () => {
    for (const dbs of opened.splice(0)) await dbs.root.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('creates a 32-byte secret once and returns the same one afterwards, also after reopening', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-link-'));
    dirs.push(dir);
    const dbs = open(dir);
    expect(dbs.meta.get('dashboard_link_secret')).toBeUndefined();
    const first = linkSecret(dbs);
    expect(first).toHaveLength(32);
    expect(dbs.meta.get('dashboard_link_secret')).toBe(first.toString('hex'));
    expect(linkSecret(dbs).equals(first)).toBe(true);

    await dbs.root.close();
    opened.splice(opened.indexOf(dbs), 1);
    const reopened = open(dir);
    expect(linkSecret(reopened).equals(first)).toBe(true);
  });

  it('gives each data directory its own secret', () => {
    const a = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-link-'));
    const b = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-link-'));
    dirs.push(a, b);
    expect(linkSecret(open(a)).equals(linkSecret(open(b)))).toBe(false);
  });
});
