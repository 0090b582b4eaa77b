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

describe('AuthStore key and token life cycle', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  function seeded() {
    const s = store();
    const org = s.writer.createOrganization('org');
    const project = s.writer.createProject({ name: 'p', organizationId: org.id, apiToken: 'phc_lifecycle_0001' });
    const user = s.writer.createUser({ email: 'a@example.com', organizationId: org.id, currentProjectId: project.id });
    return { ...s, org, project, user };
  }

  it('a deleted key is refused by another store from the next turn, and by its own at once', async () => {
    const { reader, writer, user } = seeded();
    const { key, secret } = writer.createPersonalApiKey({ userId: user.id, label: 'x', scopes: ['*'] });
    expect(reader.personalKey(secret)?.key.id).toBe(key.id);
    expect(writer.deletePersonalApiKey(key.id)).toBe(true);
    expect(writer.personalKey(secret)).toBeUndefined();
    await nextTurn();
    expect(reader.personalKey(secret)).toBeUndefined();
    expect(writer.personalKeyById(key.id)).toBeUndefined();
    expect(writer.deletePersonalApiKey(key.id)).toBe(false);
  });

  it('a rolled key keeps its id, label and scopes; only the new secret works; last_rolled_at is set', async () => {
    const { reader, writer, user } = seeded();
    const { key, secret } = writer.createPersonalApiKey({
      userId: user.id,
      label: 'roll me',
      scopes: ['feature_flag:read'],
      scopedTeams: [1],
    });
    expect(key.last_rolled_at).toBeNull();
    expect(reader.personalKey(secret)).toBeDefined();
    const rolled = writer.rollPersonalApiKey(key.id);
    expect(rolled?.secret).toMatch(/^phx_[A-Za-z0-9_-]{43}$/);
    expect(rolled?.key).toMatchObject({ id: key.id, label: 'roll me', scopes: ['feature_flag:read'], scoped_teams: [1] });
    expect(rolled?.key.mask_value).not.toBe(key.mask_value);
    expect(Date.parse(rolled?.key.last_rolled_at ?? '')).toBeGreaterThan(0);
    await nextTurn();
    expect(reader.personalKey(secret)).toBeUndefined();
    expect(reader.personalKey(rolled!.secret)?.key.id).toBe(key.id);
    expect(writer.personalKeys()).toHaveLength(1);
    expect(writer.rollPersonalApiKey('no-such-key')).toBeUndefined();
  });

  it('updates a key in place; null or [] lifts the project limit', () => {
    const { writer, user } = seeded();
    const { key, secret } = writer.createPersonalApiKey({ userId: user.id, label: 'x', scopes: ['*'], scopedTeams: [1] });
    const updated = writer.updatePersonalApiKey(key.id, { label: 'y', scopes: ['cohort:read'], scopedTeams: null });
    expect(updated).toMatchObject({ id: key.id, label: 'y', scopes: ['cohort:read'] });
    expect(updated?.scoped_teams).toBeUndefined();
    expect(writer.personalKey(secret)?.key.label).toBe('y');
    expect(writer.updatePersonalApiKey(key.id, { scopedTeams: [1] })?.scoped_teams).toEqual([1]);
    expect(writer.updatePersonalApiKey(key.id, { scopedTeams: [] })?.scoped_teams).toBeUndefined();
  });

  it('a reset project token: the old one finds nothing from the next turn, the new one the project', async () => {
    const { reader, writer, project } = seeded();
    expect(reader.projectByToken(project.api_token)?.id).toBe(project.id);
    const reset = writer.resetProjectToken(project.id);
    expect(reset?.api_token).toMatch(/^phc_[A-Za-z0-9_-]{43}$/);
    expect(reset).toMatchObject({ id: project.id, uuid: project.uuid, name: 'p' });
    await nextTurn();
    expect(reader.projectByToken(project.api_token)).toBeUndefined();
    expect(reader.projectByToken(reset!.api_token)?.id).toBe(project.id);
    expect(reader.project(project.id)?.api_token).toBe(reset!.api_token);
    expect(writer.resetProjectToken(999)).toBeUndefined();
  });
});

describe("AuthStore: a key's last use", () => {
  function withKey() {
    const s = store();
    const org = s.writer.createOrganization('org');
    const project = s.writer.createProject({ name: 'p', organizationId: org.id, apiToken: 'phc_key_use_0001' });
    const user = s.writer.createUser({ email: 'a@example.com', organizationId: org.id, currentProjectId: project.id });
    const { key, secret } = s.writer.createPersonalApiKey({ userId: user.id, label: 'x', scopes: ['*'] });
    const dbs = opened.at(-1)!.dbs;
    let nowMs = Date.parse('2026-11-28T10:00:00.000Z');
    const clock = { advance: (minutes: number) => (nowMs += minutes * 60_000) };
    // The same store for every use, as a thread holds it: its cache of keys is warm after the first.
    const user1 = new AuthStore(dbs, () => nowMs);
    return { ...s, dbs, key, secret, clock, user1 };
  }

  it('is recorded by the first use and moved by a use only once it is over an hour old, cached key or not', async () => {
    const { writer, dbs, key, secret, clock, user1 } = withKey();
    expect(writer.keyLastUsedAt(key)).toBeNull();
    user1.personalKey(secret);
    // The use's own store sees it at once; another once it is committed.
    expect(user1.keyLastUsedAt(key)).toBe('2026-11-28T10:00:00.000Z');
    await dbs.meta.committed;
    expect(writer.keyLastUsedAt(key)).toBe('2026-11-28T10:00:00.000Z');

    clock.advance(59);
    user1.personalKey(secret);
    await dbs.meta.committed;
    expect(writer.keyLastUsedAt(key)).toBe('2026-11-28T10:00:00.000Z');

    clock.advance(2);
    user1.personalKey(secret);
    await dbs.meta.committed;
    expect(writer.keyLastUsedAt(key)).toBe('2026-11-28T11:01:00.000Z');
  });

  it('starts from the stored use in a store that has not seen the key', async () => {
    const { writer, dbs, key, secret } = withKey();
    const recent = new Date(Date.now() - 59 * 60_000).toISOString();
    await dbs.meta.put(`key_used:${key.id}`, recent);
    new AuthStore(dbs).personalKey(secret);
    await dbs.meta.committed;
    expect(writer.keyLastUsedAt(key)).toBe(recent);
    await dbs.meta.put(`key_used:${key.id}`, new Date(Date.now() - 61 * 60_000).toISOString());
    const now = Date.now();
    new AuthStore(dbs).personalKey(secret);
    await dbs.meta.committed;
    expect(Date.parse(writer.keyLastUsedAt(key)!)).toBeGreaterThanOrEqual(now);
  });

  it('is kept through a roll and removed with the key', async () => {
    const { writer, dbs, key, secret } = withKey();
    writer.personalKey(secret);
    await dbs.meta.committed;
    const used = writer.keyLastUsedAt(key);
    expect(used).not.toBeNull();
    const rolled = writer.rollPersonalApiKey(key.id)!;
    expect(writer.keyLastUsedAt(rolled.key)).toBe(used);
    expect(writer.deletePersonalApiKey(key.id)).toBe(true);
    expect(dbs.meta.get(`key_used:${key.id}`)).toBeUndefined();
  });
});
