/**
 * A management write in cluster mode, as a message of the stream: the request as the receiving
 * node read it (method, path, query, body and the headers the API reads), with the time and a
 * random seed that node fixed, so that every node applying it writes the same records
 * (util/write-context.ts). A bearer personal API key travels as its SHA-256, which is what the
 * store keeps; a key sent in the body or the query string travels as sent. Also the first
 * start's defaults (`bootstrap`), which every node applies once, the first such command winning,
 * the experience-continuity hash keys `/flags` requests wrote (`hash_keys`), and `hedgerow admin`
 * actions (`admin`).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { BootstrapConfig } from '../config/schema.js';
import type { HttpRequest } from '../http/types.js';
import { monotonicMs } from '../util/monotonic-ms.js';
import type { HashKeyWrite } from '../store/hash-key-override-store.js';

/** The request headers the management API reads (auth, body type, absolute URLs, CORS). */
const CARRIED_HEADERS = ['authorization', 'content-type', 'host', 'x-forwarded-proto', 'origin'] as const;

interface CommandBase {
  readonly v: 1;
  /** Unique: the receiving node waits for the command of this id to be applied. */
  readonly id: string;
  readonly node: string;
  readonly nowMs: number;
  readonly seed: Uint8Array;
}

export interface HttpCommand extends CommandBase {
  readonly kind: 'http';
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

export interface BootstrapCommand extends CommandBase {
  readonly kind: 'bootstrap';
  readonly keys: BootstrapConfig;
}

/** Experience-continuity hash keys `/flags` requests wrote (insert where absent). */
export interface HashKeysCommand extends CommandBase {
  readonly kind: 'hash_keys';
  readonly writes: readonly HashKeyWrite[];
}

/** An `hedgerow admin` action that changes records (cli/admin-actions.ts), as the operator typed it. */
export interface AdminCommand extends CommandBase {
  readonly kind: 'admin';
  /** The command's path: `admin users create`. */
  readonly path: string;
  readonly args: readonly string[];
  /** Its options, the configuration's left out (each node applies it to its own store). */
  readonly opts: Readonly<Record<string, unknown>>;
}

/** The command line has shown an admin command's output: every node removes it. */
export interface AdminShownCommand extends CommandBase {
  readonly kind: 'admin_shown';
  /** The stream position of the admin command. */
  readonly seq: number;
}

export type ClusterCommand = HttpCommand | BootstrapCommand | HashKeysCommand | AdminCommand | AdminShownCommand;

const packr = new Packr({ useRecords: false, moreTypes: false });
const KINDS: readonly ClusterCommand['kind'][] = ['http', 'bootstrap', 'hash_keys', 'admin', 'admin_shown'];

function base(node: string): CommandBase {
  return { v: 1, id: randomUUID(), node, nowMs: Date.now(), seed: randomBytes(32) };
}

export function httpCommand(req: HttpRequest, node: string): HttpCommand {
  const headers: Record<string, string> = {};
  for (const name of CARRIED_HEADERS) {
    const value = req.header(name);
    if (value !== '') headers[name] = value;
  }
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer !== undefined) headers.authorization = `Bearer-SHA256 ${createHash('sha256').update(bearer, 'utf8').digest('hex')}`;
  return { ...base(node), kind: 'http', method: req.method, path: req.path, query: req.query, ip: req.ip, headers, body: req.body };
}

export function bootstrapCommand(keys: BootstrapConfig, node: string): BootstrapCommand {
  return { ...base(node), kind: 'bootstrap', keys: { ...keys } };
}

export function hashKeysCommand(writes: readonly HashKeyWrite[], node: string): HashKeysCommand {
  return { ...base(node), kind: 'hash_keys', writes };
}

export function adminCommand(path: string, args: readonly string[], opts: Readonly<Record<string, unknown>>, node: string): AdminCommand {
  return { ...base(node), kind: 'admin', path, args: [...args], opts: { ...opts } };
}

export function adminShownCommand(seq: number, node: string): AdminShownCommand {
  return { ...base(node), kind: 'admin_shown', seq };
}

export function encodeCommand(c: ClusterCommand): Uint8Array {
  return packr.pack(c);
}

/** The command a message holds; throws for one this release cannot read. */
export function decodeCommand(data: Uint8Array): ClusterCommand {
  const c = packr.unpack(data) as Partial<ClusterCommand> | undefined;
  if (c?.v !== 1 || !KINDS.includes(c.kind as ClusterCommand['kind']) || typeof c.id !== 'string') {
    throw new Error('not a command this release can apply');
  }
  return { ...c, seed: new Uint8Array(c.seed as Uint8Array) } as ClusterCommand;
}

/** The request a command carries, as the router takes it. */
export function commandRequest(c: HttpCommand): HttpRequest {
  return {
    method: c.method,
    path: c.path,
    query: c.query,
    ip: c.ip,
    body: c.body instanceof Uint8Array ? c.body : new Uint8Array(0),
    receivedAt: monotonicMs(),
    header: (name) => c.headers[name.toLowerCase()] ?? '',
  };
}
