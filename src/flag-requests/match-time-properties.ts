/**
 * The flags service fills missing `$initial_<x>` person properties from `<x>` at match time
 * (docs/compatibility.md#evaluation-context; PostHog/posthog
 * `rust/feature-flags/src/flags/flag_matching_utils.rs` `populate_missing_initial_properties`, over
 * the stored properties merged with the request's, after mirroring `$os`/`$os_name`): ingestion
 * sets `$initial_*` when it first sees a value, a little later than the value itself, and a flag on
 * `$initial_browser` should not miss a person in between. Pure, no I/O.
 */
import { PERSON_PROPERTIES_FROM_EVENT, initialPropertyName } from '../persons/property-updates.js';
import { copyOwn, hasOwn } from '../util/plain-object.js';

/**
 * The Rust service's list: the properties ingestion lifts onto persons (PostHog's
 * `PERSON_PROPERTIES_ADAPTED_FROM_EVENT` and `CAMPAIGN_PROPERTIES`) except `$os_name` and
 * `utm_name`, which ingestion lifts and the flags service does not fill; property → initial name.
 */
const NOT_FILLED = new Set(['$os_name', 'utm_name']);
const INITIAL_NAMES: ReadonlyMap<string, string> = new Map(
  PERSON_PROPERTIES_FROM_EVENT.filter((key) => !NOT_FILLED.has(key)).map((key) => [key, initialPropertyName(key)]),
);

/**
 * `properties` with `$os` and `$os_name` mirrored when only one is present (web SDKs send the
 * first, mobile SDKs the second; PostHog#64439 does this at match time, before the initials), then
 * every listed property's missing `$initial_` twin set to its value (null included, as the Rust
 * service copies any value). Returns `properties` itself when nothing is missing, else a copy:
 * the caller's object is never changed.
 */
export function withMatchTimeProperties(properties: Record<string, unknown>): Record<string, unknown> {
  let filled: Record<string, unknown> | undefined;
  const hasOs = hasOwn(properties, '$os');
  if (hasOs !== hasOwn(properties, '$os_name')) {
    filled = copyOwn(properties);
    if (hasOs) filled.$os_name = properties.$os;
    else filled.$os = properties.$os_name;
    properties = filled;
  }
  for (const key in properties) {
    const initial = INITIAL_NAMES.get(key);
    if (initial === undefined || hasOwn(properties, initial) || !hasOwn(properties, key)) continue;
    filled ??= copyOwn(properties);
    filled[initial] = properties[key];
  }
  return filled ?? properties;
}
