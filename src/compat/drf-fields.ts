/**
 * Django REST Framework's field coercions, as PostHog's FeatureFlagSerializer applies them to a
 * request body (docs/compatibility.md#flag-fields, #flag-validation, #errors). Each reader takes
 * the raw value of one field that was sent (never `undefined`) and returns the coerced value or
 * throws the DRF error with `attr` set to the field. Form-encoded bodies work because DRF coerces
 * strings (`active=False`).
 */

import { catalogueError, HedgerowError } from '../errors.js';
import { isPlainObject } from '../util/plain-object.js';
import { parseDrfDateTime } from './drf-datetime.js';
import { pythonNumber, pythonStr, pythonStrip, pythonTypeName } from './python-repr.js';

const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>([
  'f',
  'F',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '0',
  0,
  false,
]);
const NULL_STRINGS = new Set<unknown>(['null', 'Null', 'NULL', '']);

const LONE_SURROGATE = /\p{Cs}/u;

function failNull(attr: string): never {
  throw new HedgerowError('HR_FIELD_NULL', undefined, attr);
}

export interface CharFieldOptions {
  allowBlank: boolean;
  maxLength?: number;
}

/** `CharField`: strings and numbers (as text), whitespace-trimmed. */
export function readCharField(value: unknown, attr: string, opts: CharFieldOptions): string {
  if (typeof value === 'string' && pythonStrip(value) === '') {
    if (!opts.allowBlank) throw new HedgerowError('HR_FIELD_BLANK', undefined, attr);
    return '';
  }
  if (value === null) failNull(attr);
  let s: string;
  if (typeof value === 'string') s = pythonStrip(value);
  else if (typeof value === 'number') s = pythonNumber(value);
  else throw new HedgerowError('HR_FIELD_NOT_A_STRING', undefined, attr);
  if (opts.maxLength !== undefined && [...s].length > opts.maxLength) {
    throw catalogueError('HR_FIELD_MAX_LENGTH', { max_length: opts.maxLength }, attr);
  }
  if (s.includes('\0')) throw new HedgerowError('HR_FIELD_NULL_CHARACTERS', undefined, attr);
  const surrogate = LONE_SURROGATE.exec(s);
  if (surrogate !== null) {
    const cp = (surrogate[0].codePointAt(0) as number).toString(16).toUpperCase();
    throw catalogueError('HR_FIELD_SURROGATE_CHARACTERS', { code_point: cp }, attr);
  }
  return s;
}

/** `BooleanField`: true/false, 1/0 and their usual spellings; `null` only when nullable. */
export function readBooleanField(value: unknown, attr: string, allowNull: boolean): boolean | null {
  if (value === null) {
    if (allowNull) return null;
    failNull(attr);
  }
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  if (allowNull && NULL_STRINGS.has(value)) return null;
  throw new HedgerowError('HR_FIELD_NOT_A_BOOLEAN', undefined, attr);
}

/** `IntegerField`: integers, and strings or floats with an integral value (`"2"`, `2.0`). */
export function readIntegerField(value: unknown, attr: string): number {
  if (value === null) failNull(attr);
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const m = /^\s*([+-]?\d+)(?:\.0*)?\s*$/.exec(value);
    if (m !== null) return Number(m[1]);
  }
  throw new HedgerowError('HR_FIELD_NOT_AN_INTEGER', undefined, attr);
}

export interface ChoiceFieldOptions {
  allowBlank: boolean;
  allowNull: boolean;
}

/** `ChoiceField`: the value's text must be one of `choices`. */
export function readChoiceField<T extends string>(
  value: unknown,
  attr: string,
  choices: readonly T[],
  opts: ChoiceFieldOptions,
): T | '' | null {
  if (value === null) {
    if (opts.allowNull) return null;
    failNull(attr);
  }
  if (value === '' && opts.allowBlank) return '';
  const text = pythonStr(value);
  const hit = choices.find((c) => c === text);
  if (hit !== undefined) return hit;
  throw catalogueError('HR_FIELD_INVALID_CHOICE', { input: text }, attr);
}

/** `ListField` without a child type: any JSON array. */
export function readListField(value: unknown, attr: string): unknown[] {
  if (value === null) failNull(attr);
  if (!Array.isArray(value)) {
    throw catalogueError('HR_FIELD_NOT_A_LIST', { input_type: pythonTypeName(value) }, attr);
  }
  return value;
}

/** `DictField`: any JSON object. */
export function readDictField(value: unknown, attr: string): Record<string, unknown> {
  if (value === null) failNull(attr);
  if (!isPlainObject(value)) throw catalogueError('HR_FIELD_NOT_A_DICT', { input_type: pythonTypeName(value) }, attr);
  return value;
}

/** `DateTimeField`: an ISO 8601 string, returned as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function readDateTimeField(value: unknown, attr: string): string {
  if (value === null) failNull(attr);
  const parsed = typeof value === 'string' ? parseDrfDateTime(value) : undefined;
  if (parsed === undefined) throw new HedgerowError('HR_FIELD_DATETIME_FORMAT', undefined, attr);
  return parsed;
}

/**
 * `PrimaryKeyRelatedField(many=True)`: a list of integer ids (numbers or integer strings).
 * `exists`, when given, rejects ids that name no object.
 */
export function readPrimaryKeyList(value: unknown, attr: string, exists?: (id: number) => boolean): number[] {
  const items = readListField(value, attr);
  const ids: number[] = [];
  for (const item of items) {
    let id: number | undefined;
    if (typeof item === 'number' && Number.isInteger(item)) id = item;
    else if (typeof item === 'string' && /^\s*[+-]?\d+\s*$/.test(item)) id = Number(item);
    if (id === undefined || !Number.isSafeInteger(id)) {
      throw catalogueError('HR_FIELD_INCORRECT_TYPE', { data_type: pythonTypeName(item) }, attr);
    }
    if (exists !== undefined && !exists(id)) {
      throw catalogueError('HR_FIELD_DOES_NOT_EXIST', { pk_value: pythonStr(item) }, attr);
    }
    ids.push(id);
  }
  return ids;
}

/** The text of one list item where a string is expected (numbers as text), else "Not a valid string.". */
export function readStringItem(value: unknown, attr: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return pythonNumber(value);
  throw new HedgerowError('HR_FIELD_NOT_A_STRING', undefined, attr);
}
