/**
 * The pure `can_edit` rules and the role-access permission
 * (docs/compatibility.md#role-based-access), with plain data: each rule on its own, and the setups
 * of management vectors 53-57.
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_LEVEL } from '../../src/auth/access-level.js';
import { ORGANIZATION_LEVEL } from '../../src/auth/organization-level.js';
import { isHedgerowError } from '../../src/errors.js';
import {
  assertCanEditRoleAccess,
  canEditFeatureFlag,
  roleAccessEditDecision,
  type CanEditFeatureFlagInput,
  type RoleAccessEditInput,
} from '../../src/flags/can-edit.js';

const VIEW = ACCESS_LEVEL.CAN_ONLY_VIEW;
const EDIT = ACCESS_LEVEL.CAN_ALWAYS_EDIT;
const member = { id: 2, organization_level: ORGANIZATION_LEVEL.member };
const admin = { id: 3, organization_level: ORGANIZATION_LEVEL.admin };
const owner = { id: 4, organization_level: ORGANIZATION_LEVEL.owner };
const OTHER_USER = 99;

/** A member, a flag created by someone else, no roles, organization level unset. */
function flagInput(over: Partial<CanEditFeatureFlagInput> = {}): CanEditFeatureFlagInput {
  return {
    user: member,
    flagCreatedBy: OTHER_USER,
    orgFlagAccessLevel: undefined,
    userRoleLevels: [],
    flagRoleIds: [],
    userRoleIds: [],
    ...over,
  };
}

describe('canEditFeatureFlag: can_user_edit_feature_flag rules 2-5 (docs/compatibility.md#role-based-access)', () => {
  it('rule 2: the creator may edit even when the organization is view-only', () => {
    expect(canEditFeatureFlag(flagInput({ flagCreatedBy: member.id, orgFlagAccessLevel: VIEW }))).toBe(true);
  });

  it('a flag without a creator is owned by nobody', () => {
    expect(canEditFeatureFlag(flagInput({ flagCreatedBy: null, orgFlagAccessLevel: VIEW }))).toBe(false);
  });

  it('rule 3: admins and owners may edit when the organization is view-only', () => {
    expect(canEditFeatureFlag(flagInput({ user: admin, orgFlagAccessLevel: VIEW }))).toBe(true);
    expect(canEditFeatureFlag(flagInput({ user: owner, orgFlagAccessLevel: VIEW }))).toBe(true);
  });

  it('rule 4: organization level 37 or no row lets every member edit', () => {
    expect(canEditFeatureFlag(flagInput({ orgFlagAccessLevel: EDIT }))).toBe(true);
    expect(canEditFeatureFlag(flagInput({ orgFlagAccessLevel: undefined }))).toBe(true);
  });

  it('rule 4 runs before roles: a view-only role does not restrict (vector 57)', () => {
    // test_adding_role_edit_access_is_not_restrictive: org 37, member creator, role at 21.
    const v57 = flagInput({ flagCreatedBy: member.id, orgFlagAccessLevel: EDIT, userRoleLevels: [VIEW], userRoleIds: ['r1'] });
    expect(canEditFeatureFlag(v57)).toBe(true);
    // Same without being the creator: still the organization default wins.
    expect(canEditFeatureFlag({ ...v57, flagCreatedBy: OTHER_USER })).toBe(true);
  });

  it('rule 5: view-only organization, no roles → the organization level (21) → no (vector 56)', () => {
    expect(canEditFeatureFlag(flagInput({ orgFlagAccessLevel: VIEW }))).toBe(false);
  });

  it('rule 5: a role at 37 lets its members edit', () => {
    expect(canEditFeatureFlag(flagInput({ orgFlagAccessLevel: VIEW, userRoleLevels: [EDIT], userRoleIds: ['r1'] }))).toBe(true);
  });

  it('rule 5: the strongest role counts', () => {
    const input = flagInput({ orgFlagAccessLevel: VIEW, userRoleLevels: [VIEW, EDIT], userRoleIds: ['r1', 'r2'] });
    expect(canEditFeatureFlag(input)).toBe(true);
  });

  it('rule 5: at 21, only a role access row linking the flag to one of the user’s roles allows', () => {
    const base = flagInput({ orgFlagAccessLevel: VIEW, userRoleLevels: [VIEW], userRoleIds: ['r1'] });
    expect(canEditFeatureFlag(base)).toBe(false);
    expect(canEditFeatureFlag({ ...base, flagRoleIds: ['other-role'] })).toBe(false);
    expect(canEditFeatureFlag({ ...base, flagRoleIds: ['other-role', 'r1'] })).toBe(true);
  });

  it('rule 5: a member without roles is never let in by role access rows of other roles', () => {
    expect(canEditFeatureFlag(flagInput({ orgFlagAccessLevel: VIEW, flagRoleIds: ['r1'] }))).toBe(false);
  });
});

/** A member, a flag created by someone else, no roles, organization level 21. */
function roleAccessInput(over: Partial<RoleAccessEditInput> = {}): RoleAccessEditInput {
  return { user: member, orgFlagAccessLevel: VIEW, flag: { created_by: OTHER_USER }, userRoleLevels: [], ...over };
}

describe('roleAccessEditDecision: FeatureFlagRoleAccessPermissions (docs/compatibility.md#role-based-access)', () => {
  it('vector 54: member, not creator, no roles, organization 21 → 403', () => {
    expect(roleAccessEditDecision(roleAccessInput())).toBe('deny');
  });

  it('vector 55: admins may always add role access', () => {
    expect(roleAccessEditDecision(roleAccessInput({ user: admin }))).toBe('allow');
    expect(roleAccessEditDecision(roleAccessInput({ user: owner, flag: undefined }))).toBe('allow');
  });

  it('vector 53: the creator of the flag may', () => {
    expect(roleAccessEditDecision(roleAccessInput({ flag: { created_by: member.id } }))).toBe('allow');
  });

  it('organization 37 or no row allows everyone, before the flag is looked at', () => {
    expect(roleAccessEditDecision(roleAccessInput({ orgFlagAccessLevel: EDIT, flag: undefined }))).toBe('allow');
    expect(roleAccessEditDecision(roleAccessInput({ orgFlagAccessLevel: undefined, flag: undefined }))).toBe('allow');
  });

  it('a role at 37 allows; roles at 21 do not', () => {
    expect(roleAccessEditDecision(roleAccessInput({ userRoleLevels: [VIEW, EDIT] }))).toBe('allow');
    expect(roleAccessEditDecision(roleAccessInput({ userRoleLevels: [VIEW] }))).toBe('deny');
  });

  it('a flag whose creator is gone is owned by nobody', () => {
    expect(roleAccessEditDecision(roleAccessInput({ flag: { created_by: null } }))).toBe('deny');
  });

  it('an unknown flag is a 404 once the organization is view-only and the user not admin', () => {
    expect(roleAccessEditDecision(roleAccessInput({ flag: undefined }))).toBe('flag_not_found');
  });

  it('assertCanEditRoleAccess throws the catalogued 403 and 404 bodies', () => {
    const thrown = (input: RoleAccessEditInput) => {
      try {
        assertCanEditRoleAccess(input);
        return undefined;
      } catch (err) {
        if (!isHedgerowError(err)) throw err;
        return { status: err.status, body: err.toBody() };
      }
    };
    expect(thrown(roleAccessInput())).toEqual({
      status: 403,
      body: {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: "You can't edit roles for this feature flag.",
        attr: null,
      },
    });
    expect(thrown(roleAccessInput({ flag: undefined }))).toEqual({
      status: 404,
      body: { type: 'invalid_request', code: 'not_found', detail: 'Feature flag not found.', attr: null },
    });
    expect(thrown(roleAccessInput({ user: admin }))).toBeUndefined();
  });
});
