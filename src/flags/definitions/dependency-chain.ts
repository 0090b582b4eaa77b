/**
 * Flag dependencies in local-evaluation definitions (docs/compatibility.md#flag-definitions): every
 * `{type: "flag"}` condition property gets the dependency's flag key as `key` and a
 * `dependency_chain`: the flags to evaluate first, in topological order, ending with the
 * referenced flag. The chain is `[]` when the referenced flag references itself, or when a cycle
 * or a missing flag is met on the way. Mirrors Django's `local_evaluation.py`
 * (`_DependencyChainBuilder`) and the Rust definitions fallback, which agree, including their
 * quirk: a self-reference deeper in the chain is skipped rather than failing it.
 */

import { isPlainObject } from '../../util/plain-object.js';

type Obj = Record<string, unknown>;

/** What the rewrite needs from a served flag; its `filters` are rewritten in place. */
export interface ChainFlag {
  key: string;
  filters: Obj;
}

/** The `type: "flag"` properties of every condition (`filters.groups[*].properties`), in order. */
export function flagProperties(filters: Obj): Obj[] {
  const out: Obj[] = [];
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  for (const group of groups) {
    const properties = isPlainObject(group) ? group.properties : undefined;
    if (!Array.isArray(properties)) continue;
    for (const p of properties) if (isPlainObject(p) && p.type === 'flag') out.push(p);
  }
  return out;
}

/**
 * The flag key a stored reference names: an id (as a string, or, unlike Django, as an integer)
 * of a served flag becomes that flag's key; anything else is kept (a key, or an unknown id, which
 * then gets an empty chain). An absent key reads as `""`, as in Django.
 */
export function resolveDependencyKey(ref: unknown, idToKey: ReadonlyMap<string, string>): unknown {
  if (ref === undefined) return '';
  if (typeof ref === 'string') return idToKey.get(ref) ?? ref;
  if (typeof ref === 'number' && Number.isSafeInteger(ref)) return idToKey.get(String(ref)) ?? ref;
  return ref;
}

/** Chains by target key, built depth-first over the already-resolved keys, memoised. */
class ChainBuilder {
  private readonly memo = new Map<string, string[]>();

  constructor(private readonly byKey: ReadonlyMap<string, ChainFlag>) {}

  chain(target: unknown): string[] {
    if (typeof target !== 'string') return [];
    const known = this.memo.get(target);
    if (known) return known;
    const chain: string[] = [];
    const ok = !this.dependsOnItself(target) && this.collect(target, chain);
    const result = ok ? chain : [];
    this.memo.set(target, result);
    return result;
  }

  private dependsOnItself(key: string): boolean {
    const flag = this.byKey.get(key);
    return flag !== undefined && flagProperties(flag.filters).some((p) => p.key === key);
  }

  /**
   * Appends `target`'s dependencies, then `target`, in post order: false on a cycle or a missing
   * flag anywhere below it. Walked without recursion: a chain of flags may be longer than the stack.
   */
  private collect(target: string, chain: string[]): boolean {
    const done = new Set<string>();
    const onPath = new Set<string>();
    const path: { key: string; deps: Obj[]; next: number }[] = [];
    const enter = (key: string): boolean => {
      const flag = this.byKey.get(key);
      if (!flag) return false;
      onPath.add(key);
      path.push({ key, deps: flagProperties(flag.filters), next: 0 });
      return true;
    };
    if (!enter(target)) return false;
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const property = top.deps[top.next++];
      if (property !== undefined) {
        const dep = property.key;
        if (dep === top.key) continue; // a direct self-reference only breaks the flag's own chain
        if (typeof dep !== 'string' || !this.byKey.has(dep) || onPath.has(dep)) return false;
        if (!done.has(dep)) enter(dep);
        continue;
      }
      path.pop();
      onPath.delete(top.key);
      done.add(top.key);
      chain.push(top.key);
    }
    return true;
  }
}

/**
 * Rewrites the flag properties of `flags` in place. `idToKey` maps the id (as a string) of every
 * served flag to its key; references to other flags (deleted, remote configuration, another
 * project) stay unresolved and get `[]`.
 */
export function applyDependencyChains(flags: readonly ChainFlag[], idToKey: ReadonlyMap<string, string>): void {
  const properties = flags.flatMap((f) => flagProperties(f.filters));
  if (properties.length === 0) return;
  for (const p of properties) p.key = resolveDependencyKey(p.key, idToKey);
  const builder = new ChainBuilder(new Map(flags.map((f) => [f.key, f])));
  for (const p of properties) p.dependency_chain = [...builder.chain(p.key)];
}
