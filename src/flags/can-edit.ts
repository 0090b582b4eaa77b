/**
 * Who may edit a feature flag, and who may change its role access: PostHog's 2024 role-based
 * access rules as pure functions of plain data (no store, no I/O).
 *
 * - `canEditFeatureFlag`: PostHog/posthog `posthog/models/feature_flag/permissions.py`
 *   (`can_user_edit_feature_flag`), its rules 2-5 (docs/compatibility.md#role-based-access).
 *   Rule 1 ("the organization lacks the paid feature → true") never applies: Hedgerow has every
 *   feature, so the rules are always on.
 * - `roleAccessEditDecision`: `ee/api/feature_flag_role_access.py`
 *   (`FeatureFlagRoleAccessPermissions`) for POST/DELETE `…/feature_flags/:id/role_access`; reads
 *   (GET) are always allowed and never ask.
 */
import { ACCESS_LEVEL, type AccessLevel } from '../auth/access-level.js';
import { isAdminLevel } from '../auth/organization-level.js';
import { HedgerowError } from '../errors.js';

/** The parts of a user the rules read. */
interface EditingUser {
  id: number;
  /** PostHog's membership level: 1 member, 8 admin, 15 owner. */
  organization_level: number;
}

export interface CanEditFeatureFlagInput {
  user: EditingUser;
  /** Id of the flag's creator; null when unknown or deleted (then nobody "owns" it). */
  flagCreatedBy: number | null;
  /** The organization's `feature flags` resource level; undefined when no row is set. */
  orgFlagAccessLevel: AccessLevel | undefined;
  /** `feature_flags_access_level` of each role the user is in. */
  userRoleLevels: readonly number[];
  /** Ids of the roles that have a role access row on this flag. */
  flagRoleIds: readonly string[];
  /** Ids of the roles the user is in. */
  userRoleIds: readonly string[];
}

/** `can_user_edit_feature_flag`: the first rule that applies decides. */
export function canEditFeatureFlag(input: CanEditFeatureFlagInput): boolean {
  // 2. The creator may always edit.
  if (isCreator(input.user, input.flagCreatedBy)) return true;
  // 3. Organization admins and owners may always edit.
  if (isAdmin(input.user)) return true;
  // 4. The organization default is edit (or unset): roles cannot restrict below it.
  const orgLevel = input.orgFlagAccessLevel ?? ACCESS_LEVEL.CAN_ALWAYS_EDIT;
  if (orgLevel >= ACCESS_LEVEL.CAN_ALWAYS_EDIT) return true;
  // 5. View-only organization: the user's strongest role decides, else the organization level.
  const roleLevel = Math.max(0, ...input.userRoleLevels);
  const effective = roleLevel === 0 ? orgLevel : roleLevel;
  if (effective === ACCESS_LEVEL.CAN_ONLY_VIEW) {
    const flagRoles = new Set(input.flagRoleIds);
    return input.userRoleIds.some((id) => flagRoles.has(id));
  }
  return effective === ACCESS_LEVEL.CAN_ALWAYS_EDIT;
}

export interface RoleAccessEditInput {
  user: EditingUser;
  /** The organization's `feature flags` resource level; undefined when no row is set. */
  orgFlagAccessLevel: AccessLevel | undefined;
  /** The flag of the URL, looked up by id only; undefined when it does not exist. */
  flag: { created_by: number | null } | undefined;
  /** `feature_flags_access_level` of each role the user is in. */
  userRoleLevels: readonly number[];
}

/**
 * `allow`, `deny` (403 "You can't edit roles for this feature flag.") or `flag_not_found`
 * (404 "Feature flag not found."). The flag is only looked at when the first two checks fail.
 */
export type RoleAccessEditDecision = 'allow' | 'deny' | 'flag_not_found';

/** `FeatureFlagRoleAccessPermissions`, for POST and DELETE on a flag's role access. */
export function roleAccessEditDecision(input: RoleAccessEditInput): RoleAccessEditDecision {
  if (isAdmin(input.user)) return 'allow';
  // Only an explicit 37 or no row at all allows everyone (PostHog compares with ==).
  if (input.orgFlagAccessLevel === undefined || input.orgFlagAccessLevel === ACCESS_LEVEL.CAN_ALWAYS_EDIT) return 'allow';
  if (!input.flag) return 'flag_not_found';
  if (isCreator(input.user, input.flag.created_by)) return 'allow';
  return input.userRoleLevels.includes(ACCESS_LEVEL.CAN_ALWAYS_EDIT) ? 'allow' : 'deny';
}

/** Throws the catalogued 404 or 403 unless the decision is `allow`. */
export function assertCanEditRoleAccess(input: RoleAccessEditInput): void {
  const decision = roleAccessEditDecision(input);
  if (decision === 'flag_not_found') throw new HedgerowError('HR_ROLE_ACCESS_FLAG_NOT_FOUND');
  if (decision === 'deny') throw new HedgerowError('HR_ROLE_ACCESS_EDIT_DENIED');
}

function isAdmin(user: EditingUser): boolean {
  return isAdminLevel(user.organization_level);
}

function isCreator(user: EditingUser, createdBy: number | null): boolean {
  return createdBy !== null && createdBy === user.id;
}
