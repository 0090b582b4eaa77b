import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthStore } from '../../src/store/auth-store.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';

const opened: { dir: string; dbs: StoreDatabases }[] = [];

function store(): { reader: AuthStore; writer: AuthStore } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-auth-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  opened.push({ dir, dbs });
  // Two instances on one environment, like the daemon and a worker (or the CLI) each holding one.
  return { reader: new AuthStore(dbs), writer: new AuthStore(dbs) };
}

afterEach(async () => {
  for (const { dir, dbs } of opened.splice(0)) {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('AuthStore token cache', () => {
  it('sees a project another store created after the token was looked up and not found, from the next turn', async () => {
    const { reader, writer } = store();
    const token = 'phc_cachedtoken_0001';
    expect(reader.projectByToken(token)).toBeUndefined();
    const org = writer.createOrganization('org');
    const p = writer.createProject({ name: 'late', organizationId: org.id, apiToken: token });
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.projectByToken(token)).toEqual(p);
  });

  it('sees its own writes at once', () => {
    const { writer } = store();
    const token = 'phc_cachedtoken_0003';
    expect(writer.projectByToken(token)).toBeUndefined();
    const org = writer.createOrganization('org');
    const p = writer.createProject({ name: 'mine', organizationId: org.id, apiToken: token });
    expect(writer.projectByToken(token)).toEqual(p);
  });

  it('answers repeated lookups from the cache with the same record', () => {
    const { reader, writer } = store();
    const org = writer.createOrganization('org');
    const p = writer.createProject({ name: 'one', organizationId: org.id, apiToken: 'phc_cachedtoken_0002' });
    const first = reader.projectByToken('phc_cachedtoken_0002');
    expect(first).toEqual(p);
    expect(reader.projectByToken('phc_cachedtoken_0002')).toBe(first);
  });

  it('does not remember failed lookups of secrets longer than real ones (a client may send megabytes)', () => {
    const { reader } = store();
    const cached = reader as unknown as { personalKeyCache: Map<string, unknown>; tokenCache: Map<string, unknown> };
    for (let i = 0; i < 20; i++) {
      const secret = `phx_${String(i).padStart(4, '0')}${'A'.repeat(100_000)}`;
      expect(reader.personalKey(secret)).toBeUndefined();
      expect(reader.projectByToken(`phc_${'B'.repeat(1_000)}${i}`)).toBeUndefined();
    }
    expect(cached.personalKeyCache.size).toBe(0);
    expect(cached.tokenCache.size).toBe(0);
    expect(reader.personalKey('phx_short_unknown')).toBeUndefined();
    expect(cached.personalKeyCache.size).toBe(1);
  });

  it('keeps project ids unique after project 1 was created with an explicit id', () => {
    const { writer } = store();
    const org = writer.createOrganization('org');
    writer.createProject({ id: 1, name: 'default', organizationId: org.id });
    expect(writer.createProject({ name: 'next', organizationId: org.id }).id).toBe(2);
  });
});
