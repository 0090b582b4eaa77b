/**
 * `can_edit` of flags for a user, from the store: the organization's feature flag access level and
 * the user's roles (read once per request), and each flag's role access rows, fed to the pure rules
 * of flags/can-edit.ts.
 */
import { canEditFeatureFlag } from '../flags/can-edit.js';
import type { FeatureFlagRecord } from '../flags/feature-flag.js';
import type { User } from '../store/auth-store.js';
import type { RbacStore } from '../store/rbac-store.js';

export type EditPermission = (user: User) => (flag: FeatureFlagRecord) => boolean;

export function flagEditPermission(rbac: RbacStore): EditPermission {
  return (user) => {
    const access = rbac.userFlagAccess(user);
    return (flag) =>
      canEditFeatureFlag({
        user,
        flagCreatedBy: flag.created_by,
        orgFlagAccessLevel: access.orgFlagAccessLevel,
        userRoleLevels: access.userRoleLevels,
        userRoleIds: access.userRoleIds,
        flagRoleIds: rbac.roleAccessForFlag(flag.id).map((r) => r.role_id),
      });
  };
}
