/** Declares every configuration setting as a command-line flag, from the one settings table. */
import type { Command } from 'commander';
import { defaultValues } from '../config/load-config.js';
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
  return String(value);
}

/** The flag values commander parsed, keyed as loadConfig expects. */
export function configFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) if (opts[s.flagKey] !== undefined) out[s.flagKey] = opts[s.flagKey];
  return out;
}
