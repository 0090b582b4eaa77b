/**
 * Helpers for the management API tests: a small client bound to a personal API key, users and
 * keys made with the real `hedgerow admin` command, and the management vectors
 * (test/fixtures/management-vectors.json).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { REPO_ROOT, runCli, type DaemonHandle } from './daemon.js';
import { send, type Reply } from './http.js';

export interface ApiClient {
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  patch(path: string, body?: unknown): Promise<Reply>;
  put(path: string, body?: unknown): Promise<Reply>;
  delete(path: string): Promise<Reply>;
}

/** A client sending `Authorization: Bearer <key>` and JSON bodies. */
export function apiClient(d: Pick<DaemonHandle, 'baseUrl'>, key: string): ApiClient {
  const call = (method: string, p: string, body?: unknown) =>
    send(d, p, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    patch: (p, b) => call('PATCH', p, b),
    put: (p, b) => call('PUT', p, b),
    delete: (p) => call('DELETE', p),
  };
}

export interface TestUser {
  id: number;
  uuid: string;
  email: string;
  distinct_id: string;
  key: string;
}

/** Creates a user (member unless `level` says otherwise) and a personal key for it, through the CLI. */
export async function createUser(
  d: Pick<DaemonHandle, 'dataDir'>,
  opts: {
    email: string;
    level?: 'member' | 'admin' | 'owner';
    scopes?: string[];
    projects?: number[];
    project?: number;
    distinctId?: string;
  },
): Promise<TestUser> {
  const dataDir = ['--data-dir', d.dataDir];
  const levelFlag = opts.level === 'admin' ? ['--admin'] : opts.level === 'owner' ? ['--owner'] : [];
  const u = await runCli([
    'admin',
    'users',
    'create',
    '--email',
    opts.email,
    '--first-name',
    opts.email.split('@')[0]!,
    '--project',
    String(opts.project ?? 1),
    ...levelFlag,
    '--json',
    ...dataDir,
    ...(opts.distinctId === undefined ? [] : ['--distinct-id', opts.distinctId]),
  ]);
  expect(u.code, u.stderr).toBe(0);
  const user = JSON.parse(u.stdout) as { id: number; uuid: string; email: string; distinct_id: string };
  const k = await runCli([
    'admin',
    'keys',
    'create',
    '--user',
    opts.email,
    '--json',
    ...dataDir,
    ...(opts.scopes ? ['--scopes', opts.scopes.join(',')] : ['--full-access']),
    ...(opts.projects ? ['--projects', opts.projects.join(',')] : []),
  ]);
  expect(k.code, k.stderr).toBe(0);
  return { ...user, key: (JSON.parse(k.stdout) as { key: string }).key };
}

export interface ManagementVector {
  source: string;
  description: string;
  request: { method: string; path: string; body: unknown };
  expected: { status: number; body_fragment: unknown };
}

const VECTORS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/management-vectors.json'), 'utf8')) as ManagementVector[];

/** Vector `i` with `{name}` placeholders in its path, body and expectation replaced. */
export function managementVector(i: number, values: Record<string, string | number> = {}): ManagementVector {
  const v = VECTORS[i];
  if (!v) throw new Error(`no management vector ${i}`);
  let text = JSON.stringify(v);
  for (const [name, value] of Object.entries(values)) text = text.replaceAll(`{${name}}`, String(value));
  return JSON.parse(text) as ManagementVector;
}

/** Sends a vector's request with `client` and checks its status and body fragment. */
export async function checkVector(client: ApiClient, v: ManagementVector): Promise<Reply> {
  const method = v.request.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete';
  const r =
    method === 'get' || method === 'delete'
      ? await client[method](v.request.path)
      : await client[method](v.request.path, v.request.body ?? undefined);
  expect(r.status, `${v.description}\n${r.text}`).toBe(v.expected.status);
  if (v.expected.body_fragment !== null) {
    expect(r.json, v.description).toMatchObject(anyPlaceholders(v.expected.body_fragment) as object);
  }
  return r;
}

/** The vectors write `"{any}"` where any value is fine. */
function anyPlaceholders(value: unknown): unknown {
  if (value === '{any}') return expect.anything();
  if (Array.isArray(value)) return value.map(anyPlaceholders);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, anyPlaceholders(v)]));
  }
  return value;
}

export interface TestProject {
  id: number;
  api_token: string;
}

/** Creates a project in the default organization through the CLI (the daemon sees it at once). */
export async function createProject(d: Pick<DaemonHandle, 'dataDir'>, name: string): Promise<TestProject> {
  const r = await runCli(['admin', 'projects', 'create', '--name', name, '--json', '--data-dir', d.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TestProject;
}
