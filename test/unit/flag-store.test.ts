import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HedgerowError } from '../../src/errors.js';
import { ActivityLog } from '../../src/store/activity-log.js';
import { AuthStore, type User } from '../../src/store/auth-store.js';
import { DashboardStore } from '../../src/store/dashboard-store.js';
import { FLAG_ACTIVITY_SCOPE, FlagStore } from '../../src/store/flag-store.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';

const opened: { dir: string; dbs: StoreDatabases }[] = [];

function setup(): { flags: FlagStore; activity: ActivityLog; dashboards: DashboardStore; user: User } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-flags-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  opened.push({ dir, dbs });
  const auth = new AuthStore(dbs);
  const org = auth.createOrganization('o');
  const project = auth.createProject({ name: 'p', organizationId: org.id, id: 1 });
  const user = auth.createUser({ email: 'a@example.com', organizationId: org.id, currentProjectId: project.id });
  const activity = new ActivityLog(dbs);
  const dashboards = new DashboardStore(dbs);
  return { flags: new FlagStore(dbs, activity, dashboards), activity, dashboards, user };
}

afterEach(async () => {
  for (const { dir, dbs } of opened.splice(0)) {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('FlagStore', () => {
  it('creates a flag with defaults, its key index, a usage dashboard, a version bump and a created entry', () => {
    const { flags, activity, dashboards, user } = setup();
    const flag = flags.create(1, user, () => ({ key: 'beta' }));
    expect(flag).toMatchObject({ id: 1, key: 'beta', name: '', filters: {}, active: true, deleted: false, version: 1 });
    expect(flags.liveIdByKey(1, 'beta')).toBe(1);
    expect(flags.flagsVersion(1)).toBe(1);
    expect(dashboards.get(1, flag.usage_dashboard!)?.name).toBe('Generated Dashboard: beta Usage');
    expect(activity.list(1, FLAG_ACTIVITY_SCOPE).map((e) => [e.activity, e.item_id, e.detail.name])).toEqual([['created', '1', 'beta']]);
  });

  it('writes nothing when prepare throws', () => {
    const { flags, activity, user } = setup();
    expect(() =>
      flags.create(1, user, () => {
        throw new HedgerowError('HR_FLAG_NO_GROUPS');
      }),
    ).toThrow('Feature flags must have at least one condition set (group).');
    expect(flags.list(1)).toEqual([]);
    expect(flags.flagsVersion(1)).toBe(0);
    expect(activity.list(1, FLAG_ACTIVITY_SCOPE)).toEqual([]);
  });

  it('moves the key index with renames, soft deletes and restores, and logs each change', () => {
    const { flags, activity, dashboards, user } = setup();
    const flag = flags.create(1, user, () => ({ key: 'old' }));
    flags.update(1, flag.id, user, () => ({ key: 'new' }));
    expect([flags.liveIdByKey(1, 'old'), flags.liveIdByKey(1, 'new')]).toEqual([undefined, flag.id]);
    expect(dashboards.get(1, flag.usage_dashboard!)?.tiles.map((t) => t.insight.flag_key)).toEqual(['new', 'new']);
    flags.update(1, flag.id, user, () => ({ deleted: true }));
    expect(flags.liveIdByKey(1, 'new')).toBeUndefined();
    const restored = flags.update(1, flag.id, user, () => ({ deleted: false }));
    expect([restored.version, flags.liveIdByKey(1, 'new'), flags.flagsVersion(1)]).toEqual([4, flag.id, 4]);
    expect(activity.list(1, FLAG_ACTIVITY_SCOPE, String(flag.id)).map((e) => e.activity)).toEqual([
      'restored',
      'deleted',
      'updated',
      'created',
    ]);
  });

  it('keeps projects apart and answers 404 for a flag of another project', () => {
    const { flags, user } = setup();
    const flag = flags.create(1, user, () => ({ key: 'x' }));
    expect(flags.get(2, flag.id)).toBeUndefined();
    expect(flags.list(2)).toEqual([]);
    expect(() => flags.update(2, flag.id, user, () => ({}))).toThrow(HedgerowError);
  });
});
