/** What a personal key may do on the keys endpoint, and what the CLI's --scopes means (src/auth/personal-key-rules.ts). */
import { describe, expect, it } from 'vitest';
import { cliKeyScopes, personalKeyEndpointRefusal } from '../../src/auth/personal-key-rules.js';
import { firstInvalidScope, invalidScope } from '../../src/auth/scopes.js';

describe('personalKeyEndpointRefusal', () => {
  const unscoped = { id: 'k1', scopes: [] };
  const star = { id: 'k1', scopes: ['*'] };
  const limited = { id: 'k1', scopes: [], scoped_teams: [1] };

  it('every key may retrieve itself, by id or @current (PersonalApiKeySelfAccessPermission)', () => {
    for (const key of [unscoped, star, limited]) {
      expect(personalKeyEndpointRefusal(key, 'retrieve', 'k1')).toBeUndefined();
      expect(personalKeyEndpointRefusal(key, 'retrieve', '@current')).toBeUndefined();
    }
  });

  it('a scoped key, even *, may do nothing else', () => {
    for (const action of ['list', 'create', 'update', 'destroy', 'roll'] as const) {
      expect(personalKeyEndpointRefusal(star, action, 'k1')).toBe('unsupported');
    }
    expect(personalKeyEndpointRefusal(star, 'retrieve', 'k2')).toBe('unsupported');
  });

  it('an unscoped key manages its user keys, unless it is limited to projects', () => {
    for (const action of ['list', 'create', 'retrieve', 'update', 'destroy', 'roll'] as const) {
      expect(personalKeyEndpointRefusal(unscoped, action, 'k2')).toBeUndefined();
      expect(personalKeyEndpointRefusal(limited, action, 'k2')).toBe('project_endpoints_only');
    }
    expect(personalKeyEndpointRefusal({ ...unscoped, scoped_teams: [] }, 'create')).toBeUndefined();
  });
});

describe('cliKeyScopes', () => {
  it('full access only when asked for', () => {
    expect(cliKeyScopes(undefined, true)).toEqual({ scopes: [] });
    expect(cliKeyScopes('*', false)).toEqual({ scopes: ['*'] });
    expect(cliKeyScopes(' feature_flag:read , cohort:read,', false)).toEqual({ scopes: ['feature_flag:read', 'cohort:read'] });
  });

  it('an empty --scopes, neither option, or both are errors', () => {
    expect(cliKeyScopes('', false)).toMatchObject({ problem: expect.stringMatching(/^--scopes is empty/) });
    expect(cliKeyScopes(' , ', false)).toMatchObject({ problem: expect.stringMatching(/^--scopes is empty/) });
    expect(cliKeyScopes(undefined, false)).toMatchObject({ problem: expect.stringMatching(/--full-access/) });
    expect(cliKeyScopes('*', true)).toMatchObject({ problem: expect.stringMatching(/exclude each other/) });
  });
});

describe('scopes', () => {
  it('names the first invalid scope, as PostHog (the command line adds the nearest valid ones)', () => {
    expect(firstInvalidScope(['*', 'feature_flag:read', 'insight:invalid', 'bogus'])).toBe('insight:invalid');
    expect(invalidScope(['feature_flag:write:x'])).toBe('Invalid scope: feature_flag:write:x. Did you mean feature_flag:write?');
    expect(invalidScope(['bogus'])).toBe('Invalid scope: bogus');
    expect(firstInvalidScope(['cohort:write'])).toBeUndefined();
  });
});
