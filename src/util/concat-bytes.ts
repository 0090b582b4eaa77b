/** Joins byte chunks into one exactly sized array whose buffer it owns (so it can be transferred). */
export function concatBytes(chunks: readonly Uint8Array[], total?: number): Uint8Array {
  let size = total ?? 0;
  if (total === undefined) for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
