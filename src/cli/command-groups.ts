/**
 * Declaring only the commands a command line runs: commands come in groups, each declared by one
 * module that is loaded when the group is needed. When the first word the user typed names a
 * command of a group, only that group is declared; otherwise (no word, an option such as --help
 * or --version, `help`, a misspelt name) every group is, so help lists them all and commander's
 * "unknown command" suggests the nearest name, as when everything is declared.
 */
import type { Command } from 'commander';

export interface CommandGroup {
  /** The names of the commands the group declares on its parent. */
  readonly names: readonly string[];
  /** Declares the group's commands on `parent`; `rest` is what the user typed after the command's name. */
  readonly add: (parent: Command, rest: readonly string[]) => Promise<void>;
}

/** Declares on `parent` the group `args[0]` names, or every group in order (see the file's comment). */
export async function addCommandGroups(parent: Command, groups: readonly CommandGroup[], args: readonly string[]): Promise<void> {
  const [word, ...rest] = args;
  const named = groups.find((g) => word !== undefined && g.names.includes(word));
  if (named) {
    await named.add(parent, rest);
    return;
  }
  for (const g of groups) await g.add(parent, []);
}
