/**
 * The access levels and resources of PostHog's 2024 role-based access control
 * (docs/compatibility.md#role-based-access; PostHog/posthog
 * `ee/models/organization_resource_access.py`). Plain constants, shared by the store, the API and
 * the pure `can_edit` rules.
 */

/** `OrganizationResourceAccess.AccessLevel`: 21 "Can only view", 37 "Can always edit". */
export const ACCESS_LEVEL = Object.freeze({ CAN_ONLY_VIEW: 21, CAN_ALWAYS_EDIT: 37 } as const);
export type AccessLevel = (typeof ACCESS_LEVEL)[keyof typeof ACCESS_LEVEL];

/** No resource-access row for an organization means everyone may edit. */
export const DEFAULT_ACCESS_LEVEL: AccessLevel = ACCESS_LEVEL.CAN_ALWAYS_EDIT;

/** `OrganizationResourceAccess.Resources`, in PostHog's order. */
export const RESOURCES = Object.freeze([
  'feature flags',
  'experiments',
  'cohorts',
  'data management',
  'session recordings',
  'insights',
  'dashboards',
] as const);
export type Resource = (typeof RESOURCES)[number];
export const FEATURE_FLAGS_RESOURCE: Resource = 'feature flags';

export function isAccessLevel(v: unknown): v is AccessLevel {
  return v === ACCESS_LEVEL.CAN_ONLY_VIEW || v === ACCESS_LEVEL.CAN_ALWAYS_EDIT;
}

export function isResource(v: unknown): v is Resource {
  return typeof v === 'string' && (RESOURCES as readonly string[]).includes(v);
}

/** The command line's names of the levels: PostHog's newer access control calls them viewer and editor. */
const ACCESS_LEVEL_NAMES: Readonly<Record<string, AccessLevel>> = Object.freeze({
  view: ACCESS_LEVEL.CAN_ONLY_VIEW,
  viewer: ACCESS_LEVEL.CAN_ONLY_VIEW,
  edit: ACCESS_LEVEL.CAN_ALWAYS_EDIT,
  editor: ACCESS_LEVEL.CAN_ALWAYS_EDIT,
});

/** A level given as 21 or 37, or by name (view, viewer, edit, editor; any case); undefined otherwise. */
export function parseAccessLevel(text: string): AccessLevel | undefined {
  const t = text.trim().toLowerCase();
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    return isAccessLevel(n) ? n : undefined;
  }
  return Object.hasOwn(ACCESS_LEVEL_NAMES, t) ? ACCESS_LEVEL_NAMES[t] : undefined;
}

/** `view` or `edit` (other numbers as they are). */
export function accessLevelName(level: number): string {
  if (level === ACCESS_LEVEL.CAN_ONLY_VIEW) return 'view';
  if (level === ACCESS_LEVEL.CAN_ALWAYS_EDIT) return 'edit';
  return String(level);
}
