/** A benchmark command's integer option, checked: the usage text is shown with a bad one. */
export function intOption(usage: string): (name: string, v: string, min: number) => number {
  return (name, v, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${v}"\n${usage}`);
    return n;
  };
}
