/**
 * A `project_id` a client may send next to a personal API key (Django capture's `get_project_id`):
 * a positive integer, as a JSON number or a string of digits. Anything else is no hint.
 */
export function parseProjectIdHint(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > 15) return undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  const n = Number(value);
  return n > 0 ? n : undefined;
}
