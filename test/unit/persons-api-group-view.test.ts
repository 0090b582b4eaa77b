import { describe, expect, it } from 'vitest';
import { jsonbText } from '../../src/compat/postgres-jsonb.js';
import { renderFoundGroup, renderGroupType } from '../../src/management-api/group-view.js';
import { compareNewestFirst, groupMatches } from '../../src/persons/group-filter.js';
import type { GroupRecord } from '../../src/store/group-store.js';

const acme: GroupRecord = {
  group_type_index: 0,
  group_key: 'Acme-Inc',
  group_properties: { name: 'Acme Corporation', plan: 'pro', seats: 12 },
  created_at: '2024-05-01T00:00:00.000Z',
  version: 0,
};

describe('jsonbText', () => {
  it('prints as Postgres prints a jsonb: shorter keys first, then bytewise, with ": " and ", "', () => {
    expect(jsonbText({ plan: 'pro', a: 1, name: 'x', bb: [true, null, { z: 'é' }] })).toBe(
      '{"a": 1, "bb": [true, null, {"z": "é"}], "name": "x", "plan": "pro"}',
    );
    expect(jsonbText({})).toBe('{}');
    expect(jsonbText('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
  });
});

describe('groupMatches', () => {
  const f = (keyContains: string, search?: string) => ({ keyContains, search });

  it('filters group_key as a case-insensitive substring', () => {
    expect(groupMatches(acme, f(''))).toBe(true);
    expect(groupMatches(acme, f('me-i'))).toBe(true);
    expect(groupMatches(acme, f('zzz'))).toBe(false);
  });

  it('searches the properties’ jsonb text, or the key exactly (case-insensitive)', () => {
    expect(groupMatches(acme, f('', 'corporation'))).toBe(true);
    expect(groupMatches(acme, f('', '"plan": "PRO"'))).toBe(true);
    expect(groupMatches(acme, f('', 'seats'))).toBe(true);
    expect(groupMatches(acme, f('', 'acme-inc'))).toBe(true);
    expect(groupMatches(acme, f('', 'acme-'))).toBe(false);
    expect(groupMatches(acme, f('', 'enterprise'))).toBe(false);
  });
});

describe('renderers', () => {
  it('prints find’s group with notebook, and a group type with PostHog’s fields', () => {
    expect(renderFoundGroup(acme)).toEqual({
      group_type_index: 0,
      group_key: 'Acme-Inc',
      group_properties: acme.group_properties,
      created_at: '2024-05-01T00:00:00Z',
      notebook: null,
    });
    expect(renderGroupType({ name: 'company', index: 0 })).toEqual({
      group_type: 'company',
      group_type_index: 0,
      name_singular: null,
      name_plural: null,
      detail_dashboard: null,
      default_columns: null,
      created_at: null,
    });
  });

  it('orders newest first', () => {
    expect(compareNewestFirst('2024-01-02T00:00:00Z', '2024-01-01T00:00:00Z')).toBeLessThan(0);
    expect(compareNewestFirst('bad', '2024-01-01T00:00:00Z')).toBe(0);
  });
});
