/**
 * Request-body fields of the roles, role memberships and resource access APIs, validated the way
 * Django REST framework's field classes do it (CharField, ChoiceField, UUIDField), with DRF's
 * messages. Each function returns the coerced value, undefined when the field is absent and not
 * required, or throws the catalogued 400 with `attr` set to the field name.
 */
import { isAccessLevel, isResource, type AccessLevel, type Resource } from '../auth/access-level.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { readCharField } from '../compat/drf-fields.js';
import type { JsonObject } from '../http/api-request.js';
import { hasOwn } from '../util/plain-object.js';

/** A CharField (whitespace trimmed as Python's `strip`; blank, null, NUL and lone surrogates refused). */
export function charField(body: JsonObject, name: string, opts: { required: boolean; maxLength: number }): string | undefined {
  const raw = present(body, name, opts.required);
  if (raw === undefined) return undefined;
  return readCharField(raw, name, { allowBlank: false, maxLength: opts.maxLength });
}

/** A ChoiceField over 21/37: the number, or its decimal string (form bodies). */
export function accessLevelField(body: JsonObject, name: string, opts: { required: boolean }): AccessLevel | undefined {
  const raw = present(body, name, opts.required);
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (!isAccessLevel(value)) throw invalidChoice(raw, name);
  return value;
}

/** A ChoiceField over the resources PostHog lists ('feature flags', 'experiments', …). */
export function resourceField(body: JsonObject, name: string, opts: { required: boolean }): Resource | undefined {
  const raw = present(body, name, opts.required);
  if (raw === undefined) return undefined;
  if (!isResource(raw)) throw invalidChoice(raw, name);
  return raw;
}

/** A UUIDField: hex with or without hyphens, braces or a `urn:uuid:` prefix; returned in canonical form. */
export function uuidField(body: JsonObject, name: string): string {
  const raw = present(body, name, true);
  const hex =
    typeof raw === 'string'
      ? raw
          .trim()
          .replace(/^urn:/i, '')
          .replace(/^uuid:/i, '')
          .replace(/^\{(.*)\}$/, '$1')
          .replace(/-/g, '')
          .toLowerCase()
      : '';
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new HedgerowError('HR_FIELD_INVALID_UUID', undefined, name);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The raw value; a missing required field or a null → 400 required / null. */
function present(body: JsonObject, name: string, required: boolean): unknown {
  if (!hasOwn(body, name)) {
    if (required) throw new HedgerowError('HR_FIELD_REQUIRED', undefined, name);
    return undefined;
  }
  const raw = body[name];
  if (raw === null) throw new HedgerowError('HR_FIELD_NULL', undefined, name);
  return raw;
}

/** DRF's `"<input>" is not a valid choice.`, with the input printed as Python's `str()` would. */
function invalidChoice(raw: unknown, name: string): HedgerowError {
  return catalogueError('HR_FIELD_INVALID_CHOICE', { input: pythonStr(raw) }, name);
}

function pythonStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}
