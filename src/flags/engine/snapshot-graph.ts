/**
 * Flag dependency order (docs/compatibility.md#cohorts-and-flag-dependencies): strongly connected
 * components (Tarjan) over "depends on" edges between active flags. Tarjan emits a component only
 * after every component it reaches, so its output is already an evaluation order (dependencies
 * first). Members of a component with more than one flag, or with a self-edge, are in a cycle.
 */

export interface GraphOrder {
  /** Node indexes, each after the nodes it depends on. */
  order: number[];
  /** Whether each node is part of a dependency cycle. */
  inCycle: boolean[];
}

/** `deps[i]` lists the nodes node i depends on. */
export function dependencyOrder(deps: readonly (readonly number[])[]): GraphOrder {
  const n = deps.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const order: number[] = [];
  const inCycle: boolean[] = new Array<boolean>(n).fill(false);
  let counter = 0;

  const strongConnect = (v: number): void => {
    index[v] = counter;
    low[v] = counter;
    counter++;
    stack.push(v);
    onStack[v] = 1;
    for (const w of deps[v] ?? []) {
      if (index[w] === -1) {
        strongConnect(w);
        low[v] = Math.min(low[v] as number, low[w] as number);
      } else if (onStack[w] === 1) {
        low[v] = Math.min(low[v] as number, index[w] as number);
      }
    }
    if (low[v] !== index[v]) return;
    const component: number[] = [];
    let w: number;
    do {
      w = stack.pop() as number;
      onStack[w] = 0;
      component.push(w);
    } while (w !== v);
    const cyclic = component.length > 1 || (deps[v] ?? []).includes(v);
    for (const member of component.reverse()) {
      inCycle[member] = cyclic;
      order.push(member);
    }
  };

  for (let v = 0; v < n; v++) if (index[v] === -1) strongConnect(v);
  return { order, inCycle };
}
