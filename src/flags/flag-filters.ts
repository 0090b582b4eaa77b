/**
 * Validation of a flag's `filters` on create and update, in PostHog's order
 * (docs/compatibility.md#flag-validation). Every error is a 400 with attr `filters`. Returns the
 * filters to store, or `undefined` when a PATCH sent filters without `groups` (PostHog then keeps
 * the stored filters).
 *
 * Checks, in order: `groups` present (a list; non-empty on create); rollout percentages (numbers
 * from 0 to 100); property types (person, cohort or flag properties, or with
 * `aggregation_group_type_index` only group properties of that index); flag properties use
 * `flag_evaluates_to`; variant overrides name a variant; then per property: list size, the
 * operator, cohort references, date values, string-only operators; variant rollouts sum to 100;
 * payloads. Flag-dependency rules (ids, cycles) live in flag-dependencies.ts.
 *
 * The rollout and operator rules are PostHog's newest (products/feature_flags/backend/api/
 * feature_flag.py `validate_filters`). Earlier versions (posthog/api/feature_flag.py) stored any
 * value, though their Rust flags service reads a percentage only as a number
 * (`rollout_percentage: Option<f64>`) and an operator only from a closed list (`OperatorType`),
 * and the UI sends percentages from 0 to 100 only.
 */

import { catalogueError, type FixedCode, HedgerowError } from '../errors.js';
import { checkCohortReference, type CohortLookup } from './cohort-checks.js';
import type { FlagFilters } from './feature-flag.js';
import { parseFlagDateValue } from './flag-date-value.js';
import { PROPERTY_OPERATORS } from './engine/match-property.js';
import { pythonJsonDumps, pythonNumber, pythonStr, pythonTruthy, pythonTypeName } from '../compat/python-repr.js';
import { isPlainObject } from '../util/plain-object.js';

export interface FilterValidationContext {
  mode: 'create' | 'patch' | 'put';
  cohort: CohortLookup;
  maxPropertyValues: number;
  /** The moment relative dates are resolved against (only their syntax matters here). */
  now: Date;
}

/** The operators a flag's property may use: what the engine evaluates, and its own cohort and flag ones. */
const FLAG_OPERATORS: ReadonlySet<string> = new Set([...PROPERTY_OPERATORS, 'in', 'not_in', 'flag_evaluates_to']);
/** Operators PostHog knows (its `PropertyOperator`) that flags do not evaluate: "unsupported", not "invalid". */
const UNSUPPORTED_OPERATORS: ReadonlySet<string> = new Set(['is_cleaned_path_exact']);
/** PostHog stores these as their equivalents. */
const OPERATOR_ALIASES: Readonly<Record<string, string>> = { min: 'gte', max: 'lte' };
const COHORT_OPERATORS = new Set(['in', 'not_in']);

/** Operators whose value must be a string (docs/compatibility.md#flag-validation). */
const STRING_OPERATORS = new Set(['regex', 'icontains', 'not_regex', 'not_icontains', 'gt', 'gte', 'lt', 'lte']);
const DATE_OPERATORS = new Set(['is_date_before', 'is_date_after']);

type Obj = Record<string, unknown>;

function invalid(code: FixedCode): never {
  throw new HedgerowError(code);
}

/** A property's `type`; none means an event property. */
function propertyType(p: Obj): unknown {
  return p.type === undefined || p.type === null || p.type === '' ? 'event' : p.type;
}

/** A group type index as a number when it is one (PostHog casts `"0"` to 0). */
function groupIndex(v: unknown): unknown {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
}

/** The conditions and, per condition, its property objects; malformed entries fail `typeError`. */
function conditionsOf(groups: unknown[], typeError: FixedCode): { condition: Obj; properties: Obj[] }[] {
  return groups.map((condition) => {
    if (!isPlainObject(condition)) invalid(typeError);
    const raw = condition.properties === undefined ? [] : condition.properties;
    if (!Array.isArray(raw) || !raw.every(isPlainObject)) invalid(typeError);
    return { condition, properties: raw };
  });
}

/** The `multivariate.variants` list (empty when absent). */
function variantsOf(filters: Obj): Obj[] {
  const mv = filters.multivariate;
  if (mv === undefined || mv === null) return [];
  if (!isPlainObject(mv)) invalid('HR_FLAG_VARIANTS_INVALID');
  if (mv.variants === undefined) return [];
  if (!Array.isArray(mv.variants) || !mv.variants.every(isPlainObject)) invalid('HR_FLAG_VARIANTS_INVALID');
  return mv.variants;
}

/** The refusals of a rollout percentage: a condition's, a variant's. */
const ROLLOUT_ERRORS = {
  condition: { notANumber: 'HR_CONDITION_ROLLOUT_NOT_A_NUMBER', outOfRange: 'HR_CONDITION_ROLLOUT_OUT_OF_RANGE' },
  variant: { notANumber: 'HR_VARIANT_ROLLOUT_NOT_A_NUMBER', outOfRange: 'HR_VARIANT_ROLLOUT_OUT_OF_RANGE' },
} as const;

/**
 * A rollout percentage, absent, null or a number from 0 to 100 (PostHog's
 * `_validate_rollout_percentage`, its detail word for word: the path, then Python's type name or
 * number). PostHog now also refuses a variant without one; here it still counts as 0, as the
 * variant sum below and every PostHog version before read it.
 */
function checkRolloutPercentage(value: unknown, of: keyof typeof ROLLOUT_ERRORS, index: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number') throw catalogueError(ROLLOUT_ERRORS[of].notANumber, { index, type: pythonTypeName(value) });
  if (value < 0 || value > 100) throw catalogueError(ROLLOUT_ERRORS[of].outOfRange, { index, value: pythonNumber(value) });
}

/** The operator of a property: a known one (aliases replaced in `p`), and `in`/`not_in` on cohorts only. */
function checkOperator(p: Obj): void {
  const given = p.operator;
  if (given === undefined || given === null) return; // exact
  if (typeof given === 'string' && Object.hasOwn(OPERATOR_ALIASES, given)) p.operator = OPERATOR_ALIASES[given];
  const operator = p.operator;
  if (typeof operator !== 'string' || !(FLAG_OPERATORS.has(operator) || UNSUPPORTED_OPERATORS.has(operator))) {
    throw catalogueError('HR_INVALID_OPERATOR', { operator: pythonStr(operator) });
  }
  if (UNSUPPORTED_OPERATORS.has(operator)) {
    throw catalogueError('HR_UNSUPPORTED_OPERATOR', { operator });
  }
  if (COHORT_OPERATORS.has(operator) && p.type !== 'cohort') {
    throw catalogueError('HR_COHORT_ONLY_OPERATOR', { operator, type: pythonStr(propertyType(p)) });
  }
}

function checkProperty(p: Obj, ctx: FilterValidationContext): void {
  if (Array.isArray(p.value) && p.value.length > ctx.maxPropertyValues) {
    throw catalogueError('HR_PROPERTY_TOO_MANY_VALUES', { key: pythonStr(p.key), max_values: ctx.maxPropertyValues });
  }
  checkOperator(p);
  if (p.type === 'cohort') checkCohortReference(p.value, ctx.cohort);
  const operator = p.operator;
  if (typeof operator !== 'string') return;
  if (DATE_OPERATORS.has(operator) && parseFlagDateValue(p.value, ctx.now) === undefined) {
    throw catalogueError('HR_INVALID_DATE', { value: pythonStr(p.value) });
  }
  if (STRING_OPERATORS.has(operator) && typeof p.value !== 'string') {
    throw catalogueError('HR_INVALID_OPERATOR_VALUE', { operator, value: pythonStr(p.value) });
  }
}

function variantRolloutSum(variants: Obj[]): number {
  let sum = 0;
  for (const v of variants) {
    const r = v.rollout_percentage === undefined ? 0 : v.rollout_percentage;
    if (typeof r === 'number') sum += r;
    else if (typeof r === 'boolean') sum += r ? 1 : 0;
    else return NaN;
  }
  return sum;
}

/** Checks payloads; returns them with object values turned into JSON strings. */
function checkPayloads(filters: Obj, variantKeys: unknown[]): Obj | undefined {
  if (!('payloads' in filters)) return undefined;
  const payloads = filters.payloads;
  if (!isPlainObject(payloads)) invalid('HR_FLAG_PAYLOADS_NOT_A_DICT');
  const out: Obj = {};
  for (const [key, value] of Object.entries(payloads)) {
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        invalid('HR_FLAG_PAYLOAD_NOT_JSON');
      }
    }
    out[key] = isPlainObject(value) ? pythonJsonDumps(value) : value;
  }
  const keys = Object.keys(payloads);
  if (pythonTruthy(filters.multivariate)) {
    if (!keys.every((k) => variantKeys.includes(k))) invalid('HR_FLAG_PAYLOAD_KEYS_MULTIVARIATE');
  } else if (keys.length > 1 || keys.some((k) => k !== 'true')) {
    invalid('HR_FLAG_PAYLOAD_KEYS_BOOLEAN');
  }
  return out;
}

export function validateFlagFilters(sent: Readonly<Obj>, ctx: FilterValidationContext): FlagFilters | undefined {
  if (!('groups' in sent)) {
    if (ctx.mode === 'patch') return undefined;
    invalid('HR_FLAG_NO_GROUPS');
  }
  // Checked and stored as one copy: an aliased operator is stored as its equivalent.
  const filters = structuredClone(sent) as Obj;
  const groups = filters.groups;
  if (!Array.isArray(groups) || (ctx.mode === 'create' && groups.length === 0)) invalid('HR_FLAG_NO_GROUPS');

  const aggregation = filters.aggregation_group_type_index ?? null;
  const typeError = aggregation === null ? 'HR_FLAG_PERSON_PROPERTIES_ONLY' : 'HR_FLAG_GROUP_PROPERTIES_ONLY';
  const conditions = conditionsOf(groups, typeError);
  conditions.forEach((c, i) => checkRolloutPercentage(c.condition.rollout_percentage, 'condition', i));
  const variants = variantsOf(filters);
  variants.forEach((v, i) => checkRolloutPercentage(v.rollout_percentage, 'variant', i));

  const all = conditions.flatMap((c) => c.properties);
  if (aggregation === null) {
    if (!all.every((p) => ['person', 'cohort', 'flag'].includes(propertyType(p) as string))) invalid(typeError);
    if (!all.every((p) => p.type !== 'flag' || p.operator === 'flag_evaluates_to')) invalid('HR_FLAG_PROPERTY_OPERATOR');
  } else if (!all.every((p) => p.type === 'group' && groupIndex(p.group_type_index) === groupIndex(aggregation))) {
    invalid(typeError);
  }

  const variantKeys = variants.map((v) => v.key);
  for (const { condition, properties } of conditions) {
    if (pythonTruthy(condition.variant) && !variantKeys.includes(condition.variant)) invalid('HR_FLAG_VARIANT_OVERRIDE');
    for (const p of properties) checkProperty(p, ctx);
  }
  if (variants.length > 0 && variantRolloutSum(variants) !== 100) invalid('HR_FLAG_VARIANT_SUM');

  const payloads = checkPayloads(filters, variantKeys);
  if (payloads !== undefined) filters.payloads = payloads;
  return filters as FlagFilters;
}

/** Every `regex`/`not_regex` pattern in the conditions, for the create-time dry run. */
export function regexPatterns(filters: FlagFilters): string[] {
  const out: string[] = [];
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  for (const g of groups) {
    const props = isPlainObject(g) && Array.isArray(g.properties) ? g.properties : [];
    for (const p of props) {
      if (isPlainObject(p) && (p.operator === 'regex' || p.operator === 'not_regex') && typeof p.value === 'string') {
        out.push(p.value);
      }
    }
  }
  return out;
}
