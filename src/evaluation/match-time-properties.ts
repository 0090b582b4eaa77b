/**
 * The flags service fills missing `$initial_<x>` person properties from `<x>` at match time (spec
 * flags.md §3.1; Rust `populate_missing_initial_properties`, over the stored properties merged
 * with the request's, after mirroring `$os`/`$os_name`): ingestion sets `$initial_*` when it first sees a value, a little later
 * than the value itself, and a flag on `$initial_browser` should not miss a person in between.
 * Pure, no I/O.
 */

/**
 * The Rust service's list (PostHog's `PERSON_PROPERTIES_ADAPTED_FROM_EVENT` and
 * `CAMPAIGN_PROPERTIES`), property → its initial name. It is the flags service's own list:
 * ingestion also lifts `$os_name` and `utm_name`, which this one does not fill.
 */
const INITIAL_NAMES: ReadonlyMap<string, string> = new Map(
  [
    '$app_build',
    '$app_name',
    '$app_namespace',
    '$app_version',
    '$browser',
    '$browser_version',
    '$device_type',
    '$current_url',
    '$pathname',
    '$os',
    '$os_version',
    '$referring_domain',
    '$referrer',
    '$screen_height',
    '$screen_width',
    '$viewport_height',
    '$viewport_width',
    '$raw_user_agent',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'utm_term',
    'gclid',
    'gad_source',
    'gclsrc',
    'dclid',
    'gbraid',
    'wbraid',
    'fbclid',
    'msclkid',
    'twclid',
    'li_fat_id',
    'mc_cid',
    'igshid',
    'ttclid',
    'rdt_cid',
    'epik',
    'qclid',
    'sccid',
    'irclid',
    '_kx',
  ].map((key) => [key, `$initial_${key.startsWith('$') ? key.slice(1) : key}`]),
);

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

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
    filled = { ...properties };
    if (hasOs) filled.$os_name = properties.$os;
    else filled.$os = properties.$os_name;
    properties = filled;
  }
  for (const key in properties) {
    const initial = INITIAL_NAMES.get(key);
    if (initial === undefined || hasOwn(properties, initial) || !hasOwn(properties, key)) continue;
    filled ??= { ...properties };
    filled[initial] = properties[key];
  }
  return filled ?? properties;
}
