import { describe, expect, it } from 'vitest';
import { compileSnapshot } from '../../src/flags/engine/compile-snapshot.js';
import { evaluateFlags } from '../../src/flags/engine/evaluate-flags.js';
import type { FlagResult } from '../../src/flags/engine/evaluate-types.js';
import { reason } from '../../src/flags/engine/reasons.js';
import { FAILED, result } from '../../src/flags/engine/snapshot-results.js';
import type { FlagsResponseFormat } from '../../src/flag-requests/flags-query.js';
import { FlagsResponseEncoder, type FlagMeta, type FlagsResponseInput } from '../../src/flag-requests/flags-response.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

const REQUEST_ID = '0190a5f8-8c2e-7b3a-9d6e-4f1a2b3c4d5e';
const AT = 1_717_200_000_000;

// A multivariate result, a boolean result with a payload, a miss, a failed result.
const VARIANT = result(true, 'test', reason('condition_match', 1), '{"color":"blue"}');
const BOOL_WITH_PAYLOAD = result(true, null, reason('condition_match', 0), '{"a":1}');
const MISS = result(false, null, reason('no_condition_match', 0), undefined);
const FAILED_RESULT = FAILED.dependency_cycle_cohort;

const META: Record<string, FlagMeta> = {
  mv: { id: 11, version: 3 },
  bool: { id: 12, version: 1 },
  miss: { id: 13, version: 7 },
  broken: { id: 14, version: 2 },
  twin: { id: 15, version: 9 },
};
const meta = (key: string): FlagMeta | undefined => META[key];

function results(entries: [string, FlagResult][]): Map<string, FlagResult> {
  return new Map(entries);
}

const ALL = results([
  ['mv', VARIANT],
  ['bool', BOOL_WITH_PAYLOAD],
  ['miss', MISS],
  ['broken', FAILED_RESULT],
]);

function encode(format: FlagsResponseFormat, over: Partial<FlagsResponseInput> = {}, enc = new FlagsResponseEncoder(meta)) {
  const text = enc.encode({
    format,
    results: ALL,
    errorsWhileComputingFlags: true,
    requestId: REQUEST_ID,
    evaluatedAt: AT,
    ...over,
  });
  return { text, body: JSON.parse(text) as Record<string, unknown> };
}

const DETAILS = {
  mv: {
    key: 'mv',
    enabled: true,
    variant: 'test',
    reason: { code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' },
    metadata: { id: 11, version: 3, description: null, payload: '{"color":"blue"}', has_experiment: false },
  },
  bool: {
    key: 'bool',
    enabled: true,
    variant: null,
    reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
    metadata: { id: 12, version: 1, description: null, payload: '{"a":1}', has_experiment: false },
  },
  miss: {
    key: 'miss',
    enabled: false,
    variant: null,
    reason: { code: 'no_condition_match', condition_index: 0, description: 'No matching condition set' },
    metadata: { id: 13, version: 7, description: null, payload: null, has_experiment: false },
  },
  broken: {
    key: 'broken',
    enabled: false,
    variant: null,
    failed: true,
    reason: { code: 'dependency_cycle_cohort', condition_index: null, description: 'Cohort dependency cycle detected' },
    metadata: { id: 14, version: 2, description: null, payload: null, has_experiment: false },
  },
};

describe('FlagsResponseEncoder: flags-v2 (/flags?v=2, /decide?v=4)', () => {
  it('writes every flag as a FlagDetail', () => {
    const { text, body } = encode('flags-v2');
    expect(body).toEqual({
      errorsWhileComputingFlags: true,
      flags: DETAILS,
      requestId: REQUEST_ID,
      evaluatedAt: AT,
    });
    expect(Object.keys(body)).toEqual(['errorsWhileComputingFlags', 'flags', 'requestId', 'evaluatedAt']);
    expect(Object.keys(body.flags as object)).toEqual(['mv', 'bool', 'miss', 'broken']); // snapshot order
    expect(text).not.toContain('quotaLimited');
    expect(text).not.toContain('errorComputingFlags');
  });

  it('follows Rust FlagDetails field order; failed only when set', () => {
    const { text } = encode('flags-v2');
    expect(text).toContain(
      '"mv":{"key":"mv","enabled":true,"variant":"test","reason":{"code":"condition_match","condition_index":1,' +
        '"description":"Matched condition set 2"},"metadata":{"id":11,"version":3,"description":null,' +
        '"payload":"{\\"color\\":\\"blue\\"}","has_experiment":false}}',
    );
    expect(text).toContain('"broken":{"key":"broken","enabled":false,"variant":null,"failed":true,"reason":');
    expect(text.match(/"failed"/g)).toHaveLength(1);
  });

  it('sends an empty flags object when nothing was evaluated', () => {
    const { body } = encode('flags-v2', { results: new Map(), errorsWhileComputingFlags: false });
    expect(body).toEqual({ errorsWhileComputingFlags: false, flags: {}, requestId: REQUEST_ID, evaluatedAt: AT });
  });
});

describe('FlagsResponseEncoder: flags-v1 (/flags?v=1, /decide?v=3)', () => {
  it('writes values for all flags and payloads of enabled ones, as stored strings', () => {
    const { body } = encode('flags-v1');
    expect(body).toEqual({
      errorsWhileComputingFlags: true,
      featureFlags: { mv: 'test', bool: true, miss: false, broken: false },
      featureFlagPayloads: { mv: '{"color":"blue"}', bool: '{"a":1}' },
      requestId: REQUEST_ID,
      evaluatedAt: AT,
      errorComputingFlags: true,
    });
    expect(Object.keys(body)).toEqual([
      'errorsWhileComputingFlags',
      'featureFlags',
      'featureFlagPayloads',
      'requestId',
      'evaluatedAt',
      'errorComputingFlags',
    ]);
  });

  it('leaves out the payload of a disabled result that carries one', () => {
    const superFalse = result(false, null, reason('super_condition_value', 0), '"p"');
    const { body } = encode('flags-v1', { results: results([['bool', superFalse]]), errorsWhileComputingFlags: false });
    expect(body.featureFlags).toEqual({ bool: false });
    expect(body.featureFlagPayloads).toEqual({});
    expect(body.errorComputingFlags).toBe(false);
  });
});

describe('FlagsResponseEncoder: decide-v2 and decide-v1', () => {
  it('decide-v2: enabled flags only, key -> true|variant', () => {
    const { body } = encode('decide-v2');
    expect(body).toEqual({
      featureFlags: { mv: 'test', bool: true },
      requestId: REQUEST_ID,
      evaluatedAt: AT,
      errorComputingFlags: true,
    });
    expect(Object.keys(body)).toEqual(['featureFlags', 'requestId', 'evaluatedAt', 'errorComputingFlags']);
  });

  it('decide-v1: the keys of enabled flags', () => {
    const { body } = encode('decide-v1', { errorsWhileComputingFlags: false });
    expect(body).toEqual({
      featureFlags: ['mv', 'bool'],
      requestId: REQUEST_ID,
      evaluatedAt: AT,
      errorComputingFlags: false,
    });
  });
});

describe('FlagsResponseEncoder: config', () => {
  const CONFIG = Object.freeze({
    config: { enable_collect_everything: true },
    editorParams: {},
    isAuthenticated: false,
    supportedCompression: ['gzip', 'gzip-js'],
    sessionRecording: false,
    skipped: undefined,
  });

  it('flattens config fields after the flag fields', () => {
    const { body } = encode('flags-v1', { config: CONFIG });
    expect(Object.keys(body)).toEqual([
      'errorsWhileComputingFlags',
      'featureFlags',
      'featureFlagPayloads',
      'requestId',
      'evaluatedAt',
      'errorComputingFlags',
      'config',
      'editorParams',
      'isAuthenticated',
      'supportedCompression',
      'sessionRecording',
    ]);
    expect(body.config).toEqual({ enable_collect_everything: true });
    expect(body.supportedCompression).toEqual(['gzip', 'gzip-js']);
  });

  it('never writes a key twice: the shape own fields win over config', () => {
    const clash = { featureFlags: 'nope', flags: 'nope', requestId: 'nope', errorComputingFlags: 'kept on v2', x: 1 };
    const v1 = encode('decide-v1', { config: clash });
    expect(v1.text.match(/"featureFlags"/g)).toHaveLength(1);
    expect(v1.body.featureFlags).toEqual(['mv', 'bool']);
    expect(v1.body.flags).toBe('nope');
    expect(v1.body.requestId).toBe(REQUEST_ID);
    expect(v1.body.x).toBe(1);
    const v2 = encode('flags-v2', { config: clash });
    expect(v2.body.flags).toEqual(DETAILS);
    expect(v2.body.featureFlags).toBe('nope');
    expect(v2.body.errorComputingFlags).toBe('kept on v2');
  });

  it('reuses the text of a frozen config, per format, and rebuilds for a new object', () => {
    const enc = new FlagsResponseEncoder(meta);
    const a = encode('flags-v2', { config: CONFIG }, enc).text;
    expect(encode('flags-v2', { config: CONFIG }, enc).text).toBe(a);
    expect(encode('decide-v1', { config: CONFIG }, enc).body.sessionRecording).toBe(false);
    const other = Object.freeze({ sessionRecording: true });
    expect(encode('flags-v2', { config: other }, enc).body.sessionRecording).toBe(true);
    const mutable: Record<string, unknown> = { sessionRecording: 1 };
    expect(encode('flags-v2', { config: mutable }, enc).body.sessionRecording).toBe(1);
    mutable.sessionRecording = 2;
    expect(encode('flags-v2', { config: mutable }, enc).body.sessionRecording).toBe(2);
  });
});

describe('FlagsResponseEncoder: shared result objects', () => {
  it('one result object under two keys gives each its own key and metadata', () => {
    const shared = results([
      ['bool', BOOL_WITH_PAYLOAD],
      ['twin', BOOL_WITH_PAYLOAD],
    ]);
    const enc = new FlagsResponseEncoder(meta);
    for (let i = 0; i < 2; i++) {
      // the second round is served from the caches
      const v2 = encode('flags-v2', { results: shared }, enc).body.flags as Record<string, typeof DETAILS.bool>;
      expect(v2.bool).toEqual(DETAILS.bool);
      expect(v2.twin).toEqual({ ...DETAILS.bool, key: 'twin', metadata: { ...DETAILS.bool.metadata, id: 15, version: 9 } });
      const v1 = encode('flags-v1', { results: shared }, enc).body;
      expect(v1.featureFlags).toEqual({ bool: true, twin: true });
      expect(v1.featureFlagPayloads).toEqual({ bool: '{"a":1}', twin: '{"a":1}' });
      expect(encode('decide-v1', { results: shared }, enc).body.featureFlags).toEqual(['bool', 'twin']);
    }
  });

  it('a key whose result changes between requests gets the new result', () => {
    const enc = new FlagsResponseEncoder(meta);
    expect(encode('decide-v2', { results: results([['mv', VARIANT]]) }, enc).body.featureFlags).toEqual({ mv: 'test' });
    expect(encode('decide-v2', { results: results([['mv', MISS]]) }, enc).body.featureFlags).toEqual({});
    const other = result(true, 'control', reason('condition_match', 0), undefined);
    expect(encode('flags-v1', { results: results([['mv', other]]) }, enc).body.featureFlags).toEqual({ mv: 'control' });
  });

  it('escapes keys and values', () => {
    const odd = results([['a"b\\c', result(true, 'v"1', reason('condition_match', 0), 'x"y')]]);
    const { body } = encode('flags-v2', { results: odd });
    const detail = (body.flags as Record<string, { key: string; variant: string; metadata: { id: number; payload: string } }>)['a"b\\c'];
    expect(detail?.key).toBe('a"b\\c');
    expect(detail?.variant).toBe('v"1');
    expect(detail?.metadata.payload).toBe('x"y');
    expect(detail?.metadata.id).toBe(0); // no meta for this key
  });
});

describe('FlagsResponseEncoder: with a compiled snapshot', () => {
  it('encodes what the engine evaluated', () => {
    const flags = [
      flagRecordWith({
        id: 1,
        key: 'mv',
        version: 4,
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: { variants: [{ key: 'only', rollout_percentage: 100 }] },
          payloads: { only: '{"p":true}' },
        },
      }),
      flagRecordWith({ id: 2, key: 'off', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } }),
      flagRecordWith({ id: 3, key: 'inactive', active: false, filters: { groups: [{ rollout_percentage: 100 }] } }),
    ];
    const snapshot = compileSnapshot({ flags, cohorts: [], groupTypeMapping: {}, version: 1 });
    const evaluated = evaluateFlags(snapshot, {
      distinctId: 'user-1',
      personProperties: {},
      groups: {},
      groupProperties: {},
      now: new Date('2024-06-01T00:00:00Z'),
    });
    const byKey = new Map(flags.map((f) => [f.key, { id: f.id, version: f.version ?? 0 }]));
    const enc = new FlagsResponseEncoder((key) => byKey.get(key));
    const body = JSON.parse(
      enc.encode({ format: 'flags-v2', results: evaluated, errorsWhileComputingFlags: false, requestId: REQUEST_ID, evaluatedAt: AT }),
    ) as { flags: Record<string, unknown> };
    expect(Object.keys(body.flags)).toEqual(['mv', 'off']);
    expect(body.flags.mv).toEqual({
      key: 'mv',
      enabled: true,
      variant: 'only',
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
      metadata: { id: 1, version: 4, description: null, payload: '{"p":true}', has_experiment: false },
    });
    expect(body.flags.off).toMatchObject({ enabled: false, reason: { code: 'out_of_rollout_bound', condition_index: 0 } });
  });
});

describe('FlagsResponseEncoder: encodeInto (the answer as UTF-8 in a caller buffer)', () => {
  const FORMATS: FlagsResponseFormat[] = ['flags-v2', 'flags-v1', 'decide-v2', 'decide-v1'];
  const UNICODE = results([
    ['mv', VARIANT],
    ['clé-日本', result(true, 'vàriant-😀', reason('condition_match', 0), '{"naïve":"☃"}')],
    ['bool', BOOL_WITH_PAYLOAD],
    ['miss', MISS],
  ]);
  const CONFIG = Object.freeze({ sessionRecording: false, supportedCompression: ['gzip', 'gzip-js'], note: 'ünïcode' });

  it.each(FORMATS)('%s: the same bytes as the text, from a cold and a warm cache', (format) => {
    const input: FlagsResponseInput = {
      format,
      results: UNICODE,
      errorsWhileComputingFlags: false,
      requestId: REQUEST_ID,
      evaluatedAt: AT,
      config: CONFIG,
    };
    const enc = new FlagsResponseEncoder(meta);
    const target = Buffer.alloc(64 * 1024, 0xff);
    for (let round = 0; round < 2; round++) {
      const n = enc.encodeInto(input, target);
      expect(n).toBeDefined();
      expect(target.subarray(0, n).equals(Buffer.from(enc.encode(input), 'utf8'))).toBe(true);
    }
  });

  it('writes a flag the same whether it comes first or after another (its bytes are cached both ways)', () => {
    const enc = new FlagsResponseEncoder(meta);
    const target = Buffer.alloc(64 * 1024);
    const orders = [
      results([
        ['mv', VARIANT],
        ['bool', BOOL_WITH_PAYLOAD],
        ['miss', MISS],
      ]),
      results([
        ['miss', MISS],
        ['mv', VARIANT],
        ['bool', BOOL_WITH_PAYLOAD],
      ]),
      results([
        ['bool', BOOL_WITH_PAYLOAD],
        ['miss', MISS],
        ['mv', VARIANT],
      ]),
      results([['mv', VARIANT]]),
    ];
    for (const order of [...orders, ...[...orders].reverse()]) {
      const input: FlagsResponseInput = {
        format: 'flags-v2',
        results: order,
        errorsWhileComputingFlags: false,
        requestId: REQUEST_ID,
        evaluatedAt: AT,
      };
      const n = enc.encodeInto(input, target);
      const text = enc.encode(input);
      expect(target.subarray(0, n).toString('utf8')).toBe(text);
      expect(Object.keys(JSON.parse(text).flags)).toEqual([...order.keys()]);
    }
  });

  it('says when the answer might not fit, and writes nothing past the buffer', () => {
    const enc = new FlagsResponseEncoder(meta);
    const input: FlagsResponseInput = {
      format: 'flags-v2',
      results: ALL,
      errorsWhileComputingFlags: false,
      requestId: REQUEST_ID,
      evaluatedAt: AT,
    };
    const size = Buffer.byteLength(enc.encode(input), 'utf8');
    const backing = Buffer.alloc(size + 16, 0xaa);
    expect(enc.encodeInto(input, backing.subarray(0, 64))).toBeUndefined();
    expect(backing.subarray(64).every((b) => b === 0xaa)).toBe(true);
    expect(enc.encodeInto(input, Buffer.alloc(size * 3))).toBe(size);
  });
});
