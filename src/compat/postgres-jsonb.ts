/**
 * A JSON value as Postgres prints a `jsonb` (`::text`): `{"k": v, "k2": v2}` with `": "` and
 * `", "`, object keys shorter-first then bytewise (jsonb's storage order).
 */
export function jsonbText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort(jsonbKeyOrder);
    const obj = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${jsonbText(obj[k])}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

function jsonbKeyOrder(a: string, b: string): number {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length - bb.length || Buffer.compare(ab, bb);
}
