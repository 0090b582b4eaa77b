import { describe, expect, it } from 'vitest';
import { accessLevelName, parseAccessLevel } from '../../src/auth/access-level.js';
import { firstInvalidScope, invalidScope, scopeSuggestions } from '../../src/auth/scopes.js';
import { isEmailAddress } from '../../src/util/email-address.js';

describe('access levels on the command line', () => {
  it('are taken as 21 and 37, or by name in any case', () => {
    for (const view of ['21', 'view', 'viewer', 'VIEW', ' Viewer ']) expect(parseAccessLevel(view), view).toBe(21);
    for (const edit of ['37', 'edit', 'editor', 'Editor']) expect(parseAccessLevel(edit), edit).toBe(37);
    for (const bad of ['', '0', '22', '021x', 'admin', 'can_only_view', '__proto__', 'toString', '21.0']) {
      expect(parseAccessLevel(bad), bad).toBeUndefined();
    }
  });

  it('are shown by name', () => {
    expect([accessLevelName(21), accessLevelName(37), accessLevelName(99)]).toEqual(['view', 'edit', '99']);
  });
});

describe('an unknown scope', () => {
  it("keeps PostHog's message and adds the nearest valid scopes", () => {
    expect(invalidScope(['feature_flags:read'])).toBe('Invalid scope: feature_flags:read. Did you mean feature_flag:read?');
    expect(invalidScope(['query:read', 'persons:write'])).toBe('Invalid scope: persons:write. Did you mean person:write?');
    expect(invalidScope(['feature_flag:admin'])).toBe(
      'Invalid scope: feature_flag:admin. Did you mean feature_flag:read or feature_flag:write?',
    );
    expect(invalidScope(['nothing:like:it'])).toBe('Invalid scope: nothing:like:it');
    expect(invalidScope(['*', 'feature_flag:read'])).toBeUndefined();
  });

  it('suggests at most three', () => {
    expect(scopeSuggestions('xx:read').length).toBeLessThanOrEqual(3);
    expect(scopeSuggestions('Cohort:Read')).toEqual(['cohort:read']);
  });

  it('is still found by the check the API uses, which adds nothing', () => {
    expect(firstInvalidScope(['feature_flags:read'])).toBe('feature_flags:read');
  });
});

describe('isEmailAddress', () => {
  it('takes the common forms', () => {
    for (const ok of [
      'admin@hedgerow.local',
      'a.b+c@example.co.uk',
      'x@localhost',
      "o'neil@example.com",
      'u@bücher.de',
      'a@xn--bcher-kva.de',
    ]) {
      expect(isEmailAddress(ok), ok).toBe(true);
    }
  });

  it('refuses malformed ones', () => {
    for (const bad of [
      '',
      'plain',
      '@example.com',
      'a@',
      'a@example',
      'a@@example.com',
      'a b@example.com',
      'a@exa mple.com',
      '.a@example.com',
      'a..b@example.com',
      'a@-example.com',
      'a@example.c0m',
      'ü@example.com',
      'a@example.com.',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(250)}.com`,
    ]) {
      expect(isEmailAddress(bad), bad).toBe(false);
    }
  });
});
