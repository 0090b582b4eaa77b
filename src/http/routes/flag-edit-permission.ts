/**
 * `can_edit` of a flag for a user, from the store: the organization's feature flag access level,
 * the user's roles and the flag's role access rows, fed to the pure rules of flags/can-edit.ts.
 */
import { canEditFeatureFlag } from '../../flags/can-edit.js';
import type { FeatureFlagRecord } from '../../flags/feature-flag.js';
import type { User } from '../../store/auth-store.js';
import type { RbacStore } from '../../store/rbac-store.js';

export function flagEditPermission(rbac: RbacStore): (user: User, flag: FeatureFlagRecord) => boolean {
  return (user, flag) => {
    const access = rbac.userFlagAccess(user);
    return canEditFeatureFlag({
      user,
      flagCreatedBy: flag.created_by,
      orgFlagAccessLevel: access.orgFlagAccessLevel,
      userRoleLevels: access.userRoleLevels,
      userRoleIds: access.userRoleIds,
      flagRoleIds: rbac.roleAccessForFlag(flag.id).map((r) => r.role_id),
    });
  };
}
