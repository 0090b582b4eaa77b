/**
 * PostHog's organization membership levels (`OrganizationMembership.Level`), as plain constants
 * so pure modules (the `can_edit` rules) can use them without loading the store.
 */
export const ORGANIZATION_LEVEL = Object.freeze({ member: 1, admin: 8, owner: 15 } as const);
export type OrganizationLevel = (typeof ORGANIZATION_LEVEL)[keyof typeof ORGANIZATION_LEVEL];

/** Admins and owners (level 8 and above). */
export function isAdminLevel(level: number): boolean {
  return level >= ORGANIZATION_LEVEL.admin;
}
