/**
 * The contract between the flag evaluation engine and property matching
 * (docs/compatibility.md#property-matching): a property filter of a condition is compiled once
 * (operator resolved, regex compiled, list values prepared) into a `PropertyMatcher` that the
 * engine calls per evaluation with the value found under the filter's key in the person's (or
 * group's) properties.
 */

/** A property filter as stored in a flag's `filters.groups[].properties[]`. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  /** Default `exact`. */
  operator?: string;
  /** `person` (default), `group`, `cohort`, `flag`, … */
  type?: string;
  group_type_index?: number | null;
  negation?: boolean;
}

/**
 * Whether the value matches. `present` says whether the key exists in the property bag at all
 * (a missing property and a property set to null are different cases for some operators).
 * `now` resolves relative dates (`-7d`).
 */
export type PropertyMatcher = (value: unknown, present: boolean, now: Date) => boolean;
