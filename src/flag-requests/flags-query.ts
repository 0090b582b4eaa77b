/**
 * Which response shape a `/flags` or `/decide` request gets, from its query string
 * (docs/compatibility.md#response-shapes; PostHog/posthog `rust/feature-flags/src/api/endpoint.rs`
 * `flags` + `get_versioned_response`). `v` (alias `version`), `config` and
 * `only_evaluate_survey_feature_flags` matter here; `compression` is read by decode-flags-body.
 */

export type FlagsResponseFormat = 'decide-v1' | 'decide-v2' | 'flags-v1' | 'flags-v2';

export interface FlagsQuery {
  format: FlagsResponseFormat;
  /** Flatten the remote-config fields into the body. */
  config: boolean;
  /** `only_evaluate_survey_feature_flags`: survey targeting flags only (flag-visibility.ts). */
  onlySurveyFlags: boolean;
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;
const INTEGER = /^[+-]?[0-9]+$/;

/** Rust's `str::parse::<i32>()` with `unwrap_or(1)`: an optional sign and digits within i32, else 1. */
export function parseVersion(text: string): number {
  if (!INTEGER.test(text)) return 1;
  const n = Number(text);
  return n >= I32_MIN && n <= I32_MAX ? n : 1;
}

/**
 * Rust `deserialize_optional_bool`: present means true unless the value (lowercased) is
 * `false`, `0`, `no` or `off`; `?config` and `?config=` are true. `null` = absent.
 */
export function parseBoolParam(value: string | null): boolean | null {
  if (value === null) return null;
  switch (value.toLowerCase()) {
    case 'false':
    case '0':
    case 'no':
    case 'off':
      return false;
    default:
      return true;
  }
}

/** `null` when absent or empty (Rust `empty_string_as_none`). */
function versionParam(params: URLSearchParams): string | null {
  const v = params.get('v') ?? params.get('version');
  return v === null || v === '' ? null : v;
}

function decideFormat(version: number | null): FlagsResponseFormat {
  if (version === null || version === 1) return 'decide-v1';
  if (version === 2) return 'decide-v2';
  if (version === 3) return 'flags-v1';
  if (version >= 4) return 'flags-v2';
  return 'decide-v1'; // any other version (0, negatives)
}

/**
 * Rust `get_versioned_response` plus the defaults applied before it: `/decide` forces
 * `config=true` unless given; with neither `v` nor `config`, `/flags` answers as `v=2&config=true`;
 * an unparsable `v` counts as 1.
 */
export function parseFlagsQuery(query: string, endpoint: 'flags' | 'decide'): FlagsQuery {
  const params = new URLSearchParams(query);
  const versionText = versionParam(params);
  let config = parseBoolParam(params.get('config'));
  if (endpoint === 'decide' && config === null) config = true;

  let version: number | null = versionText === null ? null : parseVersion(versionText);
  if (version === null && config === null) {
    version = 2;
    config = true;
  }

  const format: FlagsResponseFormat =
    endpoint === 'decide' ? decideFormat(version) : version !== null && version >= 2 ? 'flags-v2' : 'flags-v1';
  return { format, config: config === true, onlySurveyFlags: parseBoolParam(params.get('only_evaluate_survey_feature_flags')) === true };
}
