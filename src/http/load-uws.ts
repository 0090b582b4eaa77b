/**
 * Loads the uWebSockets.js native binding from `@trufflesuite/uws-js-unofficial`.
 * The package's own entry silently falls back to a slow JavaScript imitation when the binary
 * does not load, so we never require it: we require the `.node` file for this platform, arch
 * and Node ABI directly and check that what came back is the native module.
 */

import { createRequire } from 'node:module';
import path from 'node:path';
import type { HttpResponse, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

export type UwsResponse = HttpResponse;
export type UwsListenSocket = us_listen_socket;

/** The package's typings lack `close()`, which the native App has (closes every socket). */
type UwsApp = TemplatedApp & { close?: () => void };

/** The part of the native module Hedgerow uses. */
export interface UwsBinding {
  App(): UwsApp;
  us_listen_socket_close(listenSocket: us_listen_socket): void;
  us_socket_local_port(socket: us_listen_socket): number;
}

export type LoadUwsResult = { ok: true; uws: UwsBinding; binaryPath: string } | { ok: false; reason: string };

const PACKAGE = '@trufflesuite/uws-js-unofficial';

/** The binary this process needs, e.g. `binaries/uws_linux_x64_115.node`. */
export function uwsBinaryName(): string {
  return `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
}

/**
 * Loads the native binding. `binaryPath` overrides the lookup (e.g. a binary extracted from a
 * single-executable asset); by default it is found next to the installed package.
 */
export function loadUws(binaryPath?: string): LoadUwsResult {
  const require = createRequire(import.meta.url);
  let file = binaryPath === undefined ? undefined : path.resolve(binaryPath);
  if (file === undefined) {
    try {
      file = path.join(path.dirname(require.resolve(`${PACKAGE}/package.json`)), 'binaries', uwsBinaryName());
    } catch (err) {
      return { ok: false, reason: `${PACKAGE} is not installed (${message(err)})` };
    }
  }
  let mod: unknown;
  try {
    mod = require(file);
  } catch (err) {
    return { ok: false, reason: `no native uWS binary for this Node (${uwsBinaryName()}): ${message(err)}` };
  }
  const cached = require.cache[file]?.exports;
  if (!isBinding(mod) || cached !== mod || !file.endsWith('.node')) {
    return { ok: false, reason: `${file} did not load as the native uWS binding` };
  }
  return { ok: true, uws: mod, binaryPath: file };
}

function isBinding(mod: unknown): mod is UwsBinding {
  if (typeof mod !== 'object' || mod === null) return false;
  const m = mod as Record<string, unknown>;
  return (
    typeof m['App'] === 'function' && typeof m['us_listen_socket_close'] === 'function' && typeof m['us_socket_local_port'] === 'function'
  );
}

function message(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? String(err)) : String(err);
}
