import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadConfigWithWarnings, unknownEnvWarnings } from '../../src/config/load-config.js';
import { OTHER_ENV_NAMES, SETTINGS } from '../../src/config/schema.js';
import { editDistance, nearestNames } from '../../src/util/nearest-names.js';

const PHC = 'phc_abcdefghij0123';
const PHX = 'phx_secretsecret0123';

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

function defaultsFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'hedgerow-config-'));
  const path = join(dir, 'default.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('loadConfig', () => {
  it('loads the embedded defaults', () => {
    const c = loadConfig({ env: {} });
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      logLevel: 'info',
      httpBackend: 'auto',
      maxBodyBytes: 20971520,
      bodyIdleTimeoutMs: 10000,
      sync: 'durable',
      shutdownTimeoutMs: 10000,
      tasksPerWorker: 8,
      workerNice: 0,
      maxPersonBacklog: 10000,
      batchWindowMs: 0,
      bootstrap: {},
    });
    expect(c.dataDir).toBe(resolve('./data'));
    expect(isAbsolute(c.dataDir)).toBe(true);
  });

  it('applies defaults < env < flags', () => {
    const env = { HEDGEROW_PORT: '9001', HEDGEROW_HOST: '0.0.0.0', HEDGEROW_SYNC: 'async' };
    const c = loadConfig({ env, flags: { port: 9002, host: undefined } });
    expect(c.port).toBe(9002);
    expect(c.host).toBe('0.0.0.0');
    expect(c.sync).toBe('async');
    expect(c.logLevel).toBe('info');
  });

  it('reads every documented variable', () => {
    const env = {
      HEDGEROW_HOST: '::1',
      HEDGEROW_PORT: '0',
      HEDGEROW_DATA_DIR: '/var/lib/hedgerow',
      HEDGEROW_WORKERS: '3',
      HEDGEROW_LOG_LEVEL: 'debug',
      HEDGEROW_HTTP_BACKEND: 'node',
      HEDGEROW_HTTP_THREADS: '4',
      HEDGEROW_MAX_BODY_BYTES: '1024',
      HEDGEROW_BODY_IDLE_TIMEOUT_MS: '2500',
      HEDGEROW_SYNC: 'none',
      HEDGEROW_SHUTDOWN_TIMEOUT_MS: '100',
      HEDGEROW_TASKS_PER_WORKER: '64',
      HEDGEROW_WORKER_NICE: '19',
      HEDGEROW_MAX_PERSON_BACKLOG: '0',
      HEDGEROW_MAX_CAPTURE_BYTES_IN_FLIGHT: '0',
      HEDGEROW_BATCH_WINDOW_MS: '0.5',
      HEDGEROW_MAX_PROPERTY_VALUES: '10',
      HEDGEROW_FLAGS_TIMEOUT_MS: '250',
      HEDGEROW_RETENTION_DAYS: '30',
      HEDGEROW_MIN_FREE_DISK_BYTES: '0',
      HEDGEROW_CLUSTER_NATS: 'nats://10.0.0.1:4222, nats://10.0.0.2:4222,tls://nats.example:4222',
      HEDGEROW_NODE_NAME: 'node-a.eu',
      HEDGEROW_CLUSTER_REPLICAS: '5',
      HEDGEROW_CLUSTER_STREAM_MAX_AGE_HOURS: '0.5',
      HEDGEROW_CLUSTER_PUBLISH_TIMEOUT_MS: '250',
      HEDGEROW_METRICS_ADDRESS: '[::1]:9464',
      HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: PHC,
      HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: PHX,
      HEDGEROW_SOMETHING_ELSE: 'ignored',
    };
    expect(loadConfig({ env })).toEqual({
      host: '::1',
      port: 0,
      dataDir: '/var/lib/hedgerow',
      workers: 3,
      logLevel: 'debug',
      httpBackend: 'node',
      httpThreads: 4,
      maxBodyBytes: 1024,
      bodyIdleTimeoutMs: 2500,
      sync: 'none',
      shutdownTimeoutMs: 100,
      tasksPerWorker: 64,
      workerNice: 19,
      maxPersonBacklog: 0,
      maxCaptureBytesInFlight: 0,
      batchWindowMs: 0.5,
      maxPropertyValues: 10,
      flagsTimeoutMs: 250,
      retentionDays: 30,
      minFreeDiskBytes: 0,
      clusterNats: 'nats://10.0.0.1:4222, nats://10.0.0.2:4222,tls://nats.example:4222',
      nodeName: 'node-a.eu',
      clusterReplicas: 5,
      clusterStreamMaxAgeHours: 0.5,
      clusterPublishTimeoutMs: 250,
      metricsAddress: '[::1]:9464',
      bootstrap: { projectApiKey: PHC, personalApiKey: PHX },
    });
    expect(SETTINGS.map((s) => s.env).sort()).toEqual(
      Object.keys(env)
        .filter((k) => k !== 'HEDGEROW_SOMETHING_ELSE')
        .sort(),
    );
  });

  it('checks the cluster settings, and names a node by its host by default', () => {
    expect(loadConfig({ env: {} }).nodeName).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    const problems = problemsOf(() =>
      loadConfig({ env: { HEDGEROW_CLUSTER_NATS: 'http://10.0.0.1:4222', HEDGEROW_NODE_NAME: 'a b', HEDGEROW_CLUSTER_REPLICAS: '0' } }),
    );
    expect(problems).toEqual([
      'HEDGEROW_CLUSTER_NATS="http://10.0.0.1:4222": must be empty, or comma-separated nats://host:port URLs',
      'HEDGEROW_NODE_NAME="a b": must be up to 64 letters, digits, ".", "_" or "-"',
      'HEDGEROW_CLUSTER_REPLICAS="0": must be an integer between 1 and 5',
    ]);
  });

  it('accepts bootstrap flags in commander form or nested', () => {
    expect(loadConfig({ env: {}, flags: { bootstrapProjectApiKey: PHC } }).bootstrap).toEqual({ projectApiKey: PHC });
    expect(loadConfig({ env: {}, flags: { bootstrap: { personalApiKey: PHX } } }).bootstrap).toEqual({
      personalApiKey: PHX,
    });
  });

  it('lists every bad setting, named the way it was set', () => {
    const problems = problemsOf(() =>
      loadConfig({
        env: { HEDGEROW_PORT: 'abc', HEDGEROW_SYNC: 'sometimes', HEDGEROW_TASKS_PER_WORKER: '0' },
        flags: { logLevel: 'loud', maxBodyBytes: 10 },
        defaultsPath: defaultsFile({
          host: '127.0.0.1',
          port: 8000,
          dataDir: './data',
          workers: 300,
          logLevel: 'info',
          httpBackend: 'apache',
          httpThreads: 0,
          maxBodyBytes: 20971520,
          bodyIdleTimeoutMs: 10000,
          sync: 'durable',
          shutdownTimeoutMs: 10000,
          tasksPerWorker: 8,
          workerNice: 10,
          maxPersonBacklog: 10000,
          maxCaptureBytesInFlight: 268435456,
          batchWindowMs: 1,
          maxPropertyValues: 1000,
          flagsTimeoutMs: 2000,
          retentionDays: 0,
          minFreeDiskBytes: 104857600,
          clusterNats: '',
          nodeName: '',
          clusterReplicas: 3,
          clusterStreamMaxAgeHours: 168,
          clusterPublishTimeoutMs: 5000,
          metricsAddress: '',
          prot: 1,
        }),
      }),
    );
    expect(problems).toHaveLength(8);
    expect(problems).toContain('HEDGEROW_PORT="abc": must be an integer between 0 and 65535');
    expect(problems).toContain('--log-level="loud": must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"');
    expect(problems).toContain('--max-body-bytes=10: must be an integer of at least 1024');
    expect(problems).toContain('HEDGEROW_SYNC="sometimes": must be one of "durable", "async", "none"');
    expect(problems).toContain('HEDGEROW_TASKS_PER_WORKER="0": must be an integer between 1 and 64');
    expect(problems.some((p) => /default\.json: workers=300: must be an integer between 0 and 256/.test(p))).toBe(true);
    expect(problems.some((p) => /default\.json: httpBackend="apache": must be one of/.test(p))).toBe(true);
    expect(problems.some((p) => /default\.json: prot: unknown setting$/.test(p))).toBe(true);
  });

  it('reports unknown and missing settings in the defaults file', () => {
    const problems = problemsOf(() =>
      loadConfig({ env: {}, defaultsPath: defaultsFile({ host: 'h', prot: 1, bootstrap: { projectKey: 'x' } }) }),
    );
    expect(problems.some((p) => p.endsWith(': prot: unknown setting'))).toBe(true);
    expect(problems.some((p) => p.endsWith(': bootstrap.projectKey: unknown setting'))).toBe(true);
    expect(problems.some((p) => p.endsWith(': port (missing): must be an integer between 0 and 65535'))).toBe(true);
  });

  it('puts the message for every problem in error.message', () => {
    try {
      loadConfig({ env: { HEDGEROW_PORT: '-1', HEDGEROW_WORKERS: 'many' } });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('2 problems');
      expect((err as Error).message).toContain('HEDGEROW_PORT="-1"');
      expect((err as Error).message).toContain('HEDGEROW_WORKERS="many"');
    }
  });

  it('coerces numeric strings strictly', () => {
    for (const bad of ['8x', '8.0', ' 8', '0x10', '1e3', 'Infinity']) {
      expect(problemsOf(() => loadConfig({ env: { HEDGEROW_PORT: bad } }))).toEqual([
        `HEDGEROW_PORT=${JSON.stringify(bad)}: must be an integer between 0 and 65535`,
      ]);
    }
    expect(problemsOf(() => loadConfig({ env: { HEDGEROW_BATCH_WINDOW_MS: '2ms' } }))).toHaveLength(1);
    expect(problemsOf(() => loadConfig({ env: {}, flags: { port: '80a' } }))).toEqual([
      '--port="80a": must be an integer between 0 and 65535',
    ]);
    expect(loadConfig({ env: { HEDGEROW_BATCH_WINDOW_MS: '2.5' } }).batchWindowMs).toBe(2.5);
    expect(loadConfig({ env: {}, flags: { port: '8080' } }).port).toBe(8080);
    expect(loadConfig({ env: { HEDGEROW_PORT: '' } }).port).toBe(8000);
  });

  it('resolves workers and httpThreads 0 to one per core', () => {
    expect(loadConfig({ env: { HEDGEROW_WORKERS: '0' } }).workers).toBe(Math.min(256, availableParallelism()));
    expect(loadConfig({ env: {}, flags: { workers: 5 } }).workers).toBe(5);
    expect(loadConfig({ env: {} }).httpThreads).toBe(Math.min(64, availableParallelism()));
    expect(loadConfig({ env: {}, flags: { httpThreads: 3 } }).httpThreads).toBe(3);
    expect(() => loadConfig({ env: { HEDGEROW_HTTP_THREADS: '65' } })).toThrow(
      /HEDGEROW_HTTP_THREADS="65": must be an integer between 0 and 64/,
    );
  });

  it('returns a deep-frozen object', () => {
    const c = loadConfig({ env: { HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: PHC } });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.bootstrap)).toBe(true);
    expect(() => {
      (c as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c.bootstrap as { projectApiKey?: string }).projectApiKey = 'x';
    }).toThrow(TypeError);
  });

  it('takes any project key PostHog can hold, refuses what cannot work, and hides personal keys', () => {
    const projectKey = (k: string) => loadConfig({ env: { HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: k } }).bootstrap.projectApiKey;
    // PostHog's current form, an older project's 43 characters, a fixture's short key, the column's 200.
    for (const k of [`phc_${'a'.repeat(43)}`, 'A'.repeat(43), 'phc_test', 'x', 'x'.repeat(200), 'clé-ключ']) {
      expect(projectKey(k)).toBe(k);
    }
    const problems = problemsOf(() =>
      loadConfig({
        env: {
          HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: 'phc has space',
          HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: 'phx_has spaces in it',
        },
        flags: {},
      }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(
      'HEDGEROW_BOOTSTRAP_PROJECT_API_KEY="phc has space": must be a project API key: 1 to 200 characters, no whitespace or control characters, not starting with "phx_"',
    );
    expect(problems[1]).toMatch(/^HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY=\(value hidden\): must be a personal API key/);
    expect(problems.join('\n')).not.toContain('has spaces');
    for (const bad of ['x'.repeat(201), 'phx_abcdefghij0', 'tab\there', 'nul\u0000', 'del\u007f', 'nbsp\u00a0x', ' phc_lead']) {
      expect(
        problemsOf(() => loadConfig({ env: { HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: bad } })),
        JSON.stringify(bad),
      ).toHaveLength(1);
    }
    const personalKey = (k: string) => loadConfig({ env: { HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: k } }).bootstrap.personalApiKey;
    for (const k of ['phx_short', `phx_${'b'.repeat(43)}`, `phx_${'b'.repeat(196)}`]) expect(personalKey(k)).toBe(k);
    for (const bad of ['phx_', `phx_${'b'.repeat(197)}`, 'phc_notpersonal', 'phx_a b']) {
      expect(
        problemsOf(() => loadConfig({ env: { HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: bad } })),
        bad,
      ).toHaveLength(1);
    }
  });

  it('reports an unreadable or malformed defaults file', () => {
    expect(problemsOf(() => loadConfig({ env: {}, defaultsPath: defaultsFile('{ nope') }))[0]).toMatch(/cannot read defaults/);
    expect(problemsOf(() => loadConfig({ env: {}, defaultsPath: defaultsFile([]) }))[0]).toMatch(/must hold a JSON object/);
  });

  it('takes a metrics address as host:port, or empty for the main port', () => {
    const address = (value: string) => loadConfig({ env: { HEDGEROW_METRICS_ADDRESS: value } }).metricsAddress;
    expect(loadConfig({ env: {} }).metricsAddress).toBe('');
    expect(address('')).toBe(''); // an empty variable is unset
    for (const ok of ['127.0.0.1:9464', 'localhost:9464', '0.0.0.0:0', '[::1]:65535', '[::]:1', 'metrics.internal:80']) {
      expect(address(ok)).toBe(ok);
    }
    expect(loadConfig({ env: {}, flags: { metricsAddress: '127.0.0.1:9100' } }).metricsAddress).toBe('127.0.0.1:9100');
    for (const bad of [
      '9464',
      ':9464',
      '127.0.0.1',
      '127.0.0.1:',
      '127.0.0.1:65536',
      '127.0.0.1:08',
      '::1:9464',
      'http://h:1',
      'a b:1',
      '[::1]',
    ]) {
      expect(
        problemsOf(() => loadConfig({ env: { HEDGEROW_METRICS_ADDRESS: bad } })),
        bad,
      ).toEqual([
        `HEDGEROW_METRICS_ADDRESS=${JSON.stringify(bad)}: must be empty, or host:port with a port between 0 and 65535 (an IPv6 address in brackets: [::1]:9464)`,
      ]);
    }
  });

  it('reads a log level (and the other choices among names) in any case, as lower case', () => {
    expect(loadConfig({ env: { HEDGEROW_LOG_LEVEL: 'DEBUG' } }).logLevel).toBe('debug');
    expect(loadConfig({ env: {}, flags: { logLevel: 'Warn' } }).logLevel).toBe('warn');
    expect(loadConfig({ env: { HEDGEROW_SYNC: 'Async', HEDGEROW_HTTP_BACKEND: 'NODE' } })).toMatchObject({
      sync: 'async',
      httpBackend: 'node',
    });
    expect(problemsOf(() => loadConfig({ env: { HEDGEROW_LOG_LEVEL: 'LOUD' } }))).toEqual([
      'HEDGEROW_LOG_LEVEL="LOUD": must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
    ]);
  });
});

describe('unknown HEDGEROW_* variables', () => {
  it('are warnings, each naming the nearest known variable when one is close', () => {
    const { config, warnings } = loadConfigWithWarnings({
      env: { HEDGEROW_PROT: '9000', HEDGEROW_LOGLEVEL: 'debug', HEDGEROW_NOTHING_LIKE_IT: '1', PATH: '/bin', HEDGEROW_PORT: '8001' },
    });
    expect(config.port).toBe(8001);
    expect(config.logLevel).toBe('info');
    expect(warnings).toEqual([
      'unknown environment variable HEDGEROW_LOGLEVEL (did you mean HEDGEROW_LOG_LEVEL?); it is ignored',
      'unknown environment variable HEDGEROW_NOTHING_LIKE_IT; it is ignored',
      'unknown environment variable HEDGEROW_PROT (did you mean HEDGEROW_PORT?); it is ignored',
    ]);
  });

  it("leave out the settings, the project's own other variables and empty ones; a name in the wrong case is one", () => {
    const env: Record<string, string> = { HEDGEROW_TYPO: '' };
    for (const s of SETTINGS) env[s.env] = 'x';
    for (const name of OTHER_ENV_NAMES) env[name] = 'x';
    expect(unknownEnvWarnings(env)).toEqual([]);
    expect(unknownEnvWarnings({ hedgerow_port: '1' })).toEqual([
      'unknown environment variable hedgerow_port (did you mean HEDGEROW_PORT?); it is ignored',
    ]);
    expect(unknownEnvWarnings({ HEDGEROW_CACHE_DRI: '/c' })).toEqual([
      'unknown environment variable HEDGEROW_CACHE_DRI (did you mean HEDGEROW_CACHE_DIR?); it is ignored',
    ]);
  });

  it('a bad setting is still an error, whatever the warnings', () => {
    expect(problemsOf(() => loadConfigWithWarnings({ env: { HEDGEROW_PORT: 'x', HEDGEROW_PROT: '1' } }))).toHaveLength(1);
  });
});

describe('nearestNames', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('PORT', 'PROT')).toBe(1);
    expect(editDistance('PORT', 'PORTS')).toBe(1);
    expect(editDistance('PORT', 'POT')).toBe(1);
    expect(editDistance('PORT', 'PART')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('gives every candidate at the smallest distance, up to the limit', () => {
    expect(nearestNames('cat', ['cut', 'cot', 'cart', 'dog'])).toEqual(['cut', 'cot', 'cart']);
    expect(nearestNames('cat', ['dog'])).toEqual([]);
    expect(nearestNames('cat', ['cats', 'ca'], 0)).toEqual([]);
  });
});
