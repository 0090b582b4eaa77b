/** Declares every configuration setting as a command-line flag, from the one settings table. */
import type { Command } from 'commander';
import { SETTINGS } from '../config/schema.js';

/** Adds `--host`, `--port`, … (all settings) to a command; values stay strings until loadConfig checks them. */
export function addConfigFlags(cmd: Command, only?: readonly string[]): Command {
  for (const s of SETTINGS) {
    if (only && !only.includes(s.path)) continue;
    cmd.option(`${s.flag} <value>`, `${s.doc} [env ${s.env}]`);
  }
  return cmd;
}

/** The flag values commander parsed, keyed as loadConfig expects. */
export function configFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) if (opts[s.flagKey] !== undefined) out[s.flagKey] = opts[s.flagKey];
  return out;
}
