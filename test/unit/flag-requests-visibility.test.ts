/**
 * Which flags a `/flags` request may see (src/flag-requests/flag-visibility.ts), with the Rust
 * flags service's rules (`fetch_and_filter`): survey flags only, the caller's runtime, the
 * request's evaluation contexts against the flags' evaluation tags. Plain data, no I/O.
 */
import { describe, expect, it } from 'vitest';
import { compileSnapshot } from '../../src/flags/engine/compile-snapshot.js';
import { evaluateFlags } from '../../src/flags/engine/evaluate-flags.js';
import type { FeatureFlagRecord } from '../../src/flags/feature-flag.js';
import { detectRuntime, runtimeFromText, visibleSlots, type VisibilityRequest } from '../../src/flag-requests/flag-visibility.js';
import { parseFlagsQuery } from '../../src/flag-requests/flags-query.js';
import { parseFlagsRequest } from '../../src/flag-requests/flags-request.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

const ON = { groups: [{ properties: [], rollout_percentage: 100 }] };

function flag(id: number, key: string, over: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({ id, key, filters: ON, ...over });
}

const FLAGS = [
  flag(1, 'plain'),
  flag(2, 'server-only', { evaluation_runtime: 'server' }),
  flag(3, 'client-only', { evaluation_runtime: 'client' }),
  flag(4, 'survey-targeting-abc'),
  flag(5, 'prod-only', { tags: ['prod'], evaluation_tags: ['prod'] }),
  flag(6, 'prod-or-staging', { tags: ['prod', 'staging'], evaluation_tags: ['prod', 'staging'] }),
];
const snapshot = compileSnapshot({ flags: FLAGS, cohorts: [], groupTypeMapping: {}, version: 1 });

function visibleKeys(req: Partial<VisibilityRequest>): string[] {
  const visible = visibleSlots(snapshot, { onlySurveyFlags: false, runtime: 'all', contexts: [], ...req });
  if (visible === null) return FLAGS.map((f) => f.key);
  const results = evaluateFlags(snapshot, {
    distinctId: 'u1',
    personProperties: {},
    groups: {},
    groupProperties: {},
    now: new Date(),
    visible,
  });
  const keys: string[] = [];
  results.forEach((_r, key) => keys.push(key));
  return keys;
}

describe('detectRuntime', () => {
  it('takes the runtime the body names, else reads the User-Agent, else the browser-only headers', () => {
    expect(detectRuntime({ explicit: 'server', userAgent: 'Mozilla/5.0', browserHeaders: true })).toBe('server');
    expect(detectRuntime({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120', browserHeaders: false })).toBe('client');
    expect(detectRuntime({ userAgent: 'posthog-node/5.9.1', browserHeaders: false })).toBe('server');
    expect(detectRuntime({ userAgent: 'posthog-python/6.0.0', browserHeaders: true })).toBe('server');
    expect(detectRuntime({ userAgent: 'curl/8.5.0', browserHeaders: false })).toBe('server');
    expect(detectRuntime({ userAgent: 'posthog-android/3.0.0', browserHeaders: false })).toBe('client');
    expect(detectRuntime({ userAgent: 'node', browserHeaders: true })).toBe('client');
    expect(detectRuntime({ userAgent: 'node', browserHeaders: false })).toBeUndefined();
    expect(detectRuntime({ userAgent: '', browserHeaders: false })).toBeUndefined();
  });

  it('reads the body runtime as Rust does: case aside, anything unknown is all', () => {
    expect(runtimeFromText('CLIENT')).toBe('client');
    expect(runtimeFromText('server')).toBe('server');
    expect(runtimeFromText('edge')).toBe('all');
    expect(runtimeFromText('')).toBe('all');
  });
});

describe('visibleSlots', () => {
  it('leaves every flag in for a caller of runtime all and no other filter', () => {
    expect(visibleSlots(snapshot, { onlySurveyFlags: false, runtime: 'all', contexts: [] })).toBeNull();
  });

  it('leaves every flag in, whatever the caller, when no flag is restricted (survey mode aside)', () => {
    const plain = compileSnapshot({ flags: [flag(1, 'a'), flag(2, 'b')], cohorts: [], groupTypeMapping: {}, version: 1 });
    expect(visibleSlots(plain, { onlySurveyFlags: false, runtime: undefined, contexts: ['prod'] })).toBeNull();
    expect(visibleSlots(plain, { onlySurveyFlags: true, runtime: undefined, contexts: [] })).toEqual(Uint8Array.of(0, 0));
  });

  it('shows runtime-specific flags only to their runtime, and neither to an undetected one', () => {
    expect(visibleKeys({ runtime: 'server' })).toEqual(['plain', 'server-only', 'survey-targeting-abc', 'prod-only', 'prod-or-staging']);
    expect(visibleKeys({ runtime: 'client' })).toEqual(['plain', 'client-only', 'survey-targeting-abc', 'prod-only', 'prod-or-staging']);
    expect(visibleKeys({ runtime: undefined })).toEqual(['plain', 'survey-targeting-abc', 'prod-only', 'prod-or-staging']);
  });

  it('keeps only survey targeting flags when asked', () => {
    expect(visibleKeys({ onlySurveyFlags: true })).toEqual(['survey-targeting-abc']);
  });

  it('shows a flag with evaluation tags only to requests naming one of them', () => {
    expect(visibleKeys({ contexts: ['staging'] })).toEqual([
      'plain',
      'server-only',
      'client-only',
      'survey-targeting-abc',
      'prod-or-staging',
    ]);
    expect(visibleKeys({ contexts: ['prod'] })).toEqual(FLAGS.map((f) => f.key));
    expect(visibleKeys({ contexts: ['dev'] })).toEqual(['plain', 'server-only', 'client-only', 'survey-targeting-abc']);
  });

  it('lets flag_keys_to_evaluate choose among the visible flags only', () => {
    const visible = visibleSlots(snapshot, { onlySurveyFlags: false, runtime: 'client', contexts: [] }) as Uint8Array;
    const results = evaluateFlags(snapshot, {
      distinctId: 'u1',
      personProperties: {},
      groups: {},
      groupProperties: {},
      now: new Date(),
      flagKeys: ['server-only', 'client-only'],
      visible,
    });
    expect(results.get('client-only')?.enabled).toBe(true);
    expect(results.get('server-only')).toBeUndefined();
  });
});

describe('the request fields visibility reads', () => {
  it('takes evaluation_contexts, or its alias evaluation_environments, and evaluation_runtime', () => {
    expect(parseFlagsRequest({ token: 't', evaluation_contexts: ['prod', 3] }).evaluationContexts).toEqual(['prod']);
    expect(parseFlagsRequest({ token: 't', evaluation_environments: ['staging'] }).evaluationContexts).toEqual(['staging']);
    expect(parseFlagsRequest({ token: 't', evaluation_contexts: 'prod' }).evaluationContexts).toEqual([]);
    expect(parseFlagsRequest({ token: 't', evaluation_runtime: 'Server' }).evaluationRuntime).toBe('server');
    expect(parseFlagsRequest({ token: 't', evaluation_runtime: 1 }).evaluationRuntime).toBeUndefined();
  });

  it('reads only_evaluate_survey_feature_flags as the other boolean query parameters', () => {
    expect(parseFlagsQuery('v=2&only_evaluate_survey_feature_flags=true', 'flags').onlySurveyFlags).toBe(true);
    expect(parseFlagsQuery('v=2&only_evaluate_survey_feature_flags=false', 'flags').onlySurveyFlags).toBe(false);
    expect(parseFlagsQuery('v=2', 'flags').onlySurveyFlags).toBe(false);
  });
});
