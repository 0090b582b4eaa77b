/**
 * Declares every configuration setting as a command-line flag, from the one settings table, and
 * `--env-file` (a systemd environment file read over the environment), for every command that
 * reads the configuration.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import type { Command } from 'commander';
import { ConfigError, defaultValues } from '../config/load-config.js';
import { SETTINGS, type SettingSpec } from '../config/schema.js';

/** Adds `--host`, `--port`, … (all settings) to a command; values stay strings until loadConfig checks them. */
export function addConfigFlags(cmd: Command, only?: readonly string[]): Command {
  const defaults = defaultValues();
  for (const s of SETTINGS) {
    if (only && !only.includes(s.path)) continue;
    cmd.option(`${s.flag} <value>`, `${s.doc} (default: ${defaultText(s, defaults)}; env ${s.env})`);
  }
  return cmd;
}

/** The default as `--help` states it: the defaults file's value, or what happens without one. */
function defaultText(s: SettingSpec, defaults: ReadonlyMap<string, unknown>): string {
  const value = defaults.get(s.path);
  if (value === undefined) return s.path.startsWith('bootstrap.') ? 'generated on first start' : 'none';
  if ((s.path === 'workers' || s.path === 'httpThreads') && value === 0) return '0, one per core';
  if (value === '') return 'none';
  return String(value);
}

/** The flag values commander parsed, keyed as loadConfig expects. */
export function configFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) if (opts[s.flagKey] !== undefined) out[s.flagKey] = opts[s.flagKey];
  return out;
}

/** Adds `--env-file` and the setting flags a command reads (commands other than `serve`). */
export function addCommandConfigFlags(cmd: Command, settings: readonly string[]): Command {
  cmd.option('--env-file <path>', 'read HEDGEROW_* settings from this file over the environment, e.g. /etc/hedgerow/hedgerow.env');
  return addConfigFlags(cmd, settings);
}

/** The environment a command reads its settings from: the process's, with `--env-file`'s variables over it. */
export function commandEnv(opts: Record<string, unknown>): NodeJS.ProcessEnv {
  return typeof opts.envFile === 'string' ? withEnvFile(opts.envFile) : process.env;
}

/** The process environment with the file's variables over it (a missing file is a configuration error). */
function withEnvFile(file: string): NodeJS.ProcessEnv {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`--env-file ${file}: ${err instanceof Error ? err.message : String(err)}`]);
  }
  return { ...process.env, ...parseEnv(text) };
}
