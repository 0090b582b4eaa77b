/**
 * How PostHog's groups API prints groups and group types (`GroupsViewSet`, `GroupTypeSerializer`);
 * its list filters are persons/group-filter.ts.
 */
import { apiDateTime } from '../compat/iso-micros.js';
import type { GroupRecord } from '../store/group-store.js';

export function renderGroup(group: GroupRecord): Record<string, unknown> {
  return {
    group_type_index: group.group_type_index,
    group_key: group.group_key,
    group_properties: group.group_properties,
    created_at: apiDateTime(group.created_at),
  };
}

/** `groups/find` adds the group's notebook; Hedgerow has no notebooks. */
export function renderFoundGroup(group: GroupRecord): Record<string, unknown> {
  return { ...renderGroup(group), notebook: null };
}

/** A group type; the display names, dashboard, columns and creation time are not kept here. */
export function renderGroupType(type: { name: string; index: number }): Record<string, unknown> {
  return {
    group_type: type.name,
    group_type_index: type.index,
    name_singular: null,
    name_plural: null,
    detail_dashboard: null,
    default_columns: null,
    created_at: null,
  };
}
