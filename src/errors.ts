/**
 * The one error catalogue. Every error a client can see is listed here with a stable
 * Hedgerow code, its HTTP status, the PostHog body fields (`type`, `code`, `attr`) and its
 * wording: a fixed message, or a template whose `{name}` placeholders `catalogueError` fills in
 * (DRF's own templates where the error is DRF's). Handlers throw `HedgerowError`s;
 * `toErrorResponse` at the edge turns them into bodies.
 */

type PostHogErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'not_found' | 'server_error' | 'throttled_error';

interface CatalogueEntry<M extends string = string> {
  readonly status: number;
  readonly type: PostHogErrorType;
  /** PostHog's `code` field. */
  readonly code: string;
  readonly attr: string | null;
  /** The detail, or its template: `{name}` stands for the parameter `name`. */
  readonly message: M;
}

function entry<M extends string>(
  status: number,
  type: PostHogErrorType,
  code: string,
  message: M,
  attr: string | null = null,
): CatalogueEntry<M> {
  return Object.freeze({ status, type, code, attr, message });
}

export const ERRORS = Object.freeze({
  // --- request decoding (capture) ---
  HR_EMPTY_PAYLOAD: entry(400, 'validation_error', 'invalid_payload', 'request missing data payload'),
  // A payload that does not decode (src/wire/decompress-payload.ts `isUndecodable`).
  HR_GZIP_INVALID: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request: invalid gzip data'),
  HR_GZIP_NOT_UTF8: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request: invalid UTF-8 in gzip data'),
  HR_PAYLOAD_NOT_UTF8: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request: invalid UTF-8 in request payload'),
  HR_LZ64_INVALID: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request: invalid lz64 data'),
  HR_LZ64_NOT_UTF16: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request: lz64 data is not valid UTF-16'),
  // The reason is JSON.parse's own (cut to 120 characters).
  HR_PARSE_FAILED: entry(400, 'validation_error', 'invalid_payload', 'failed to parse request: {reason}'),
  HR_PARSE_LONE_SURROGATE: entry(400, 'validation_error', 'invalid_payload', 'failed to parse request: lone surrogate in a \\u escape'),
  // JSON that is not an object or an array: `literal` is `null`, `true` or `false`.
  HR_PAYLOAD_IS_LITERAL: entry(
    400,
    'validation_error',
    'invalid_payload',
    'failed to parse request: the payload is {literal}, not an event, a list of events or a batch',
  ),
  HR_PAYLOAD_IS_NUMBER: entry(
    400,
    'validation_error',
    'invalid_payload',
    'failed to parse request: the payload is a number, not an event, a list of events or a batch',
  ),
  HR_PAYLOAD_IS_STRING: entry(
    400,
    'validation_error',
    'invalid_payload',
    'failed to parse request: the payload is a string, not an event, a list of events or a batch',
  ),
  HR_NO_EVENT_NAME_ATTR: entry(400, 'validation_error', 'invalid_payload', 'non-engage request missing event name attribute'),
  HR_EMPTY_BATCH: entry(400, 'validation_error', 'invalid_payload', 'request holds no event'),
  HR_EVENTS_NOT_OBJECTS: entry(400, 'validation_error', 'invalid_payload', 'Invalid payload: some events are null or not objects'),
  // An event the raw-event schema refuses: `field` and `problem` are the schema validator's path and message.
  HR_EVENT_FIELD_INVALID: entry(400, 'validation_error', 'invalid_payload', 'Invalid payload: event {index} {field} {problem}'),
  // The same, when the validator names no field.
  HR_INVALID_EVENT: entry(400, 'validation_error', 'invalid_payload', 'Invalid payload: event {index}'),
  HR_EVENT_TOO_DEEP: entry(
    400,
    'validation_error',
    'invalid_payload',
    'Invalid payload: event {index} nests deeper than {max_depth} levels',
  ),
  HR_INVALID_UUID: entry(400, 'validation_error', 'invalid_payload', 'Event field "uuid" is not a valid UUID!', 'uuid'),
  HR_BODY_TOO_LARGE: entry(413, 'validation_error', 'payload_too_large', 'request body exceeds the {max_bytes}-byte limit'),
  // Over the decoded-size budget (src/wire/decompress-payload.ts `isOverDecodedLimit`): gzip
  // output, a compressed payload past the floor at more than the ratio, a payload's decoded
  // bytes, lz64 output.
  HR_DECOMPRESSED_TOO_LARGE: entry(413, 'validation_error', 'payload_too_large', 'decompressed payload exceeds {max_bytes} bytes'),
  HR_DECOMPRESSED_RATIO: entry(
    413,
    'validation_error',
    'payload_too_large',
    'decompressed payload exceeds {limit} bytes: past {floor} bytes, a payload may decode to at most {ratio} times its compressed size ({compressed} bytes)',
  ),
  HR_PAYLOAD_OVER_BUDGET: entry(413, 'validation_error', 'payload_too_large', 'payload of {bytes} bytes exceeds {max_bytes} bytes'),
  HR_LZ64_TOO_LARGE: entry(413, 'validation_error', 'payload_too_large', 'lz64 payload exceeds the decompressed size limit'),
  HR_EVENT_TOO_LARGE: entry(
    413,
    'validation_error',
    'event_too_large',
    'maximum event size exceeded: event {index} is {size} bytes encoded, the limit is {max_bytes}',
  ),

  // --- project key (capture, flags) ---
  HR_API_KEY_MISSING: entry(
    400,
    'validation_error',
    'invalid_project',
    'API key not provided. You can find your project API key in PostHog project settings.',
    'project_id',
  ),
  HR_PERSONAL_KEY_PROJECT_NOT_FOUND: entry(
    400,
    'validation_error',
    'invalid_project',
    'Project {project_id} not found for this personal API key.',
    'project_id',
  ),
  HR_INVALID_API_KEY: entry(
    401,
    'authentication_error',
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in PostHog project settings.',
  ),
  HR_API_KEY_MALFORMED: entry(401, 'authentication_error', 'invalid_api_key', 'Provided API key is not valid: {reason}'),
  HR_INCONSISTENT_API_KEYS: entry(401, 'authentication_error', 'invalid_api_key', 'batch submitted with inconsistent api_key values'),
  HR_INVALID_PERSONAL_API_KEY: entry(401, 'authentication_error', 'invalid_personal_api_key', 'Personal API key invalid.'),

  // --- management / read API ---
  HR_NOT_AUTHENTICATED: entry(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.'),
  HR_AUTHENTICATION_FAILED: entry(
    401,
    'authentication_error',
    'authentication_failed',
    'Personal API key found in request {where} is invalid.',
  ),
  HR_PROJECT_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'Project not found.'),
  HR_PROJECT_ACCESS_DENIED: entry(403, 'authentication_error', 'permission_denied', "You don't have access to the project."),
  HR_SCOPE_MISSING: entry(403, 'authentication_error', 'permission_denied', "API key missing required scope '{scope}'"),
  HR_SCOPED_KEY_UNSUPPORTED: entry(
    403,
    'authentication_error',
    'permission_denied',
    'This action does not support Personal API Key access',
  ),
  HR_KEY_PROJECT_DENIED: entry(
    403,
    'authentication_error',
    'permission_denied',
    'API key does not have access to the requested project: ID {project_id}.',
  ),
  HR_KEY_PROJECT_ENDPOINTS_ONLY: entry(
    403,
    'authentication_error',
    'permission_denied',
    'API keys with scoped projects are only supported on project-based endpoints.',
  ),
  HR_PROJECT_TOKEN_INVALID: entry(
    401,
    'authentication_error',
    'authentication_failed',
    'Project API key invalid. You can find your project API key in PostHog project settings.',
  ),
  HR_DASHBOARD_LINK_INVALID: entry(403, 'authentication_error', 'permission_denied', 'This dashboard link is invalid or has expired.'),
  // TeamMemberStrictManagementPermission: writes to a project (reset_token) need admin level.
  HR_PROJECT_ADMIN_REQUIRED: entry(
    403,
    'authentication_error',
    'permission_denied',
    "You don't have sufficient permissions in the project.",
  ),

  // --- personal API keys (PostHog's PersonalAPIKeySerializer) ---
  HR_INVALID_SCOPE: entry(400, 'validation_error', 'invalid_input', 'Invalid scope: {scope}', 'scopes'),
  HR_KEY_SCOPED_TEAMS_NOT_MEMBER: entry(
    400,
    'validation_error',
    'invalid_input',
    'You must be a member of all teams that you are scoping the key to.',
    'scoped_teams',
  ),
  HR_KEY_SCOPED_ORGANIZATIONS_NOT_MEMBER: entry(
    400,
    'validation_error',
    'invalid_input',
    'You must be a member of all organizations that you are scoping the key to.',
    'scoped_organizations',
  ),
  HR_KEY_SCOPED_ORGANIZATION_INVALID: entry(400, 'validation_error', 'invalid_input', 'Invalid organization UUID', 'scoped_organizations'),
  HR_TOO_MANY_PERSONAL_KEYS: entry(
    400,
    'validation_error',
    'invalid_input',
    'You can only have {max_keys} personal API keys. Remove an existing key before creating a new one.',
  ),

  // --- management API request bodies ---
  HR_JSON_PARSE: entry(400, 'invalid_request', 'parse_error', 'JSON parse error - {reason}'),
  // Flag and cohort filters are compiled and matched recursively: deeper JSON could exhaust the stack.
  HR_JSON_TOO_DEEP: entry(400, 'invalid_request', 'parse_error', 'JSON parse error - nesting deeper than {max_depth} levels'),
  HR_UNSUPPORTED_MEDIA_TYPE: entry(415, 'invalid_request', 'unsupported_media_type', 'Unsupported media type "{media_type}" in request.'),
  HR_BODY_NOT_A_DICT: entry(400, 'validation_error', 'invalid_input', 'Invalid data. Expected a dictionary, but got {datatype}.'),

  // --- management API validation (DRF field and serializer errors) ---
  HR_FIELD_REQUIRED: entry(400, 'validation_error', 'required', 'This field is required.'),
  HR_FIELD_NULL: entry(400, 'validation_error', 'null', 'This field may not be null.'),
  HR_FIELD_BLANK: entry(400, 'validation_error', 'blank', 'This field may not be blank.'),
  HR_FIELD_MAX_LENGTH: entry(400, 'validation_error', 'max_length', 'Ensure this field has no more than {max_length} characters.'),
  HR_FIELD_INVALID_CHOICE: entry(400, 'validation_error', 'invalid_choice', '"{input}" is not a valid choice.'),
  HR_FIELD_DOES_NOT_EXIST: entry(400, 'validation_error', 'does_not_exist', 'Invalid pk "{pk_value}" - object does not exist.'),
  HR_FIELD_NOT_A_LIST: entry(400, 'validation_error', 'not_a_list', 'Expected a list of items but got type "{input_type}".'),
  HR_FIELD_EMPTY_LIST: entry(400, 'validation_error', 'empty', 'This list may not be empty.'),
  HR_FIELD_NOT_A_DICT: entry(400, 'validation_error', 'not_a_dict', 'Expected a dictionary of items but got type "{input_type}".'),
  HR_FIELD_INCORRECT_TYPE: entry(400, 'validation_error', 'incorrect_type', 'Incorrect type. Expected pk value, received {data_type}.'),
  HR_FIELD_NULL_CHARACTERS: entry(400, 'validation_error', 'null_characters_not_allowed', 'Null characters are not allowed.'),
  HR_FIELD_SURROGATE_CHARACTERS: entry(
    400,
    'validation_error',
    'surrogate_characters_not_allowed',
    'Surrogate characters are not allowed: U+{code_point}.',
  ),
  // DRF's `invalid` messages of CharField, BooleanField, IntegerField and DateTimeField, with
  // PostHog's generic `invalid_input` code.
  HR_FIELD_NOT_A_STRING: entry(400, 'validation_error', 'invalid_input', 'Not a valid string.'),
  HR_FIELD_NOT_A_BOOLEAN: entry(400, 'validation_error', 'invalid_input', 'Must be a valid boolean.'),
  HR_FIELD_NOT_AN_INTEGER: entry(400, 'validation_error', 'invalid_input', 'A valid integer is required.'),
  HR_FIELD_DATETIME_FORMAT: entry(
    400,
    'validation_error',
    'invalid_input',
    'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
  ),
  // DRF's UUIDField, with PostHog's generic `invalid_input` code.
  HR_FIELD_INVALID_UUID: entry(400, 'validation_error', 'invalid_input', 'Must be a valid UUID.'),
  HR_INVALID_FLAG_KEY: entry(
    400,
    'validation_error',
    'invalid_key',
    'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
    'key',
  ),
  // A flag's `filters` (src/flags/flag-filters.ts); values are shown as Python prints them.
  HR_FLAG_NO_GROUPS: entry(
    400,
    'validation_error',
    'invalid_input',
    'Feature flags must have at least one condition set (group).',
    'filters',
  ),
  HR_FLAG_PERSON_PROPERTIES_ONLY: entry(
    400,
    'validation_error',
    'invalid_input',
    'Filters are not valid (can only use person and cohort properties)',
    'filters',
  ),
  HR_FLAG_GROUP_PROPERTIES_ONLY: entry(
    400,
    'validation_error',
    'invalid_input',
    'Filters are not valid (can only use group properties)',
    'filters',
  ),
  HR_FLAG_PROPERTY_OPERATOR: entry(
    400,
    'validation_error',
    'invalid_input',
    "Flag properties must use the 'flag_evaluates_to' operator",
    'filters',
  ),
  HR_FLAG_VARIANTS_INVALID: entry(
    400,
    'validation_error',
    'invalid_input',
    'Invalid variant definitions: variants must be a list of objects.',
    'filters',
  ),
  HR_FLAG_VARIANT_SUM: entry(
    400,
    'validation_error',
    'invalid_input',
    'Invalid variant definitions: Variant rollout percentages must sum to 100.',
    'filters',
  ),
  HR_FLAG_VARIANT_OVERRIDE: entry(
    400,
    'validation_error',
    'invalid_input',
    'Filters are not valid (variant override does not exist)',
    'filters',
  ),
  HR_FLAG_PAYLOADS_NOT_A_DICT: entry(400, 'validation_error', 'invalid_input', 'Payloads must be passed as a dictionary', 'filters'),
  HR_FLAG_PAYLOAD_NOT_JSON: entry(400, 'validation_error', 'invalid_input', 'Payload value is not valid JSON', 'filters'),
  HR_FLAG_PAYLOAD_KEYS_MULTIVARIATE: entry(
    400,
    'validation_error',
    'invalid_input',
    'Payload keys must match a variant key for multivariate flags',
    'filters',
  ),
  HR_FLAG_PAYLOAD_KEYS_BOOLEAN: entry(400, 'validation_error', 'invalid_input', "Payload keys must be 'true' for boolean flags", 'filters'),
  // PostHog's `_validate_rollout_percentage`: `type` is Python's type name.
  HR_CONDITION_ROLLOUT_NOT_A_NUMBER: entry(
    400,
    'validation_error',
    'invalid_input',
    'groups[{index}].rollout_percentage must be a number or null, got {type}',
    'filters',
  ),
  HR_CONDITION_ROLLOUT_OUT_OF_RANGE: entry(
    400,
    'validation_error',
    'invalid_input',
    'groups[{index}].rollout_percentage must be between 0 and 100, got {value}',
    'filters',
  ),
  HR_VARIANT_ROLLOUT_NOT_A_NUMBER: entry(
    400,
    'validation_error',
    'invalid_input',
    'multivariate.variants[{index}].rollout_percentage must be a number or null, got {type}',
    'filters',
  ),
  HR_VARIANT_ROLLOUT_OUT_OF_RANGE: entry(
    400,
    'validation_error',
    'invalid_input',
    'multivariate.variants[{index}].rollout_percentage must be between 0 and 100, got {value}',
    'filters',
  ),
  HR_PROPERTY_TOO_MANY_VALUES: entry(
    400,
    'validation_error',
    'invalid_input',
    'Property group expressions of type {key} cannot contain more than {max_values} values.',
    'filters',
  ),
  HR_INVALID_OPERATOR_VALUE: entry(400, 'validation_error', 'invalid_value', 'Invalid value for operator {operator}: {value}', 'filters'),
  HR_INVALID_OPERATOR: entry(400, 'validation_error', 'invalid_operator', 'Invalid operator: {operator}', 'filters'),
  HR_COHORT_ONLY_OPERATOR: entry(
    400,
    'validation_error',
    'invalid_operator',
    "The '{operator}' operator is only valid for cohort properties, not '{type}' properties.",
    'filters',
  ),
  HR_UNSUPPORTED_OPERATOR: entry(
    400,
    'validation_error',
    'unsupported_operator',
    'Unsupported operator for feature flags: {operator}',
    'filters',
  ),
  HR_INVALID_DATE: entry(400, 'validation_error', 'invalid_date', 'Invalid date value: {value}', 'filters'),
  HR_COHORT_DOES_NOT_EXIST: entry(400, 'validation_error', 'cohort_does_not_exist', 'Cohort with id {id} does not exist', 'filters'),
  HR_BEHAVIORAL_COHORT: entry(
    400,
    'validation_error',
    'behavioral_cohort_found',
    "Cohort '{name}' with filters on events cannot be used in feature flags.",
    'filters',
  ),
  HR_BEHAVIORAL_COHORT_DEPENDENCY: entry(
    400,
    'validation_error',
    'behavioral_cohort_found',
    "A cohort dependency ({name}) has filters based on events. These cohorts can't be used in feature flags.",
    'filters',
  ),
  HR_BEHAVIORAL_FILTER_IN_FLAG_COHORT: entry(
    400,
    'validation_error',
    'behavioral_cohort_found',
    'Behavioral filters cannot be added to cohorts used in feature flags.',
    'filters',
  ),
  // Flag dependencies (src/flags/flag-dependencies.ts).
  HR_FLAG_DEPENDENCY_NOT_AN_ID: entry(
    400,
    'validation_error',
    'invalid_input',
    "Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '{reference}'",
    'filters',
  ),
  HR_FLAG_DEPENDS_ON_ITSELF: entry(400, 'validation_error', 'invalid_input', "Feature flag '{key}' cannot depend on itself", 'filters'),
  HR_FLAG_DEPENDENCY_NOT_FOUND: entry(
    400,
    'validation_error',
    'invalid_input',
    'Flag dependency references non-existent flag with ID {id}',
    'filters',
  ),
  HR_FLAG_DEPENDENCY_DISABLED: entry(
    400,
    'validation_error',
    'invalid_input',
    "Cannot create dependency on disabled flag '{key}' (ID: {id}). Flag dependencies must reference active flags only.",
    'filters',
  ),
  // The path is the flags' keys (or ids) joined with ' → '.
  HR_FLAG_DEPENDENCY_CYCLE: entry(400, 'validation_error', 'invalid_input', 'Circular dependency detected: {path}', 'filters'),
  // The serializer's `validate()` and `create()` (attr null).
  HR_EVALUATION_TAGS_NOT_IN_TAGS: entry(
    400,
    'validation_error',
    'invalid_input',
    'Evaluation tags must be a subset of tags. Invalid evaluation tags: {tags}',
  ),
  HR_DEVICE_BUCKETING_WITH_CONTINUITY: entry(
    400,
    'validation_error',
    'invalid_input',
    "Cannot enable 'persist across authentication steps' when using device ID bucketing. These features are incompatible.",
  ),
  HR_FLAG_DRY_RUN_FAILED: entry(400, 'validation_error', 'invalid_input', "Can't evaluate flag - please check release conditions"),
  HR_FLAG_VERSION_CONFLICT: entry(
    409,
    'server_error',
    'conflict',
    'The feature flag was updated by {user} since you started editing it. Please refresh and try again.',
  ),
  HR_FLAG_KEY_TAKEN: entry(400, 'validation_error', 'unique', 'There is already a feature flag with this key.', 'key'),
  HR_FLAG_DELETE_HAS_DEPENDENTS: entry(
    400,
    'validation_error',
    'invalid_input',
    'Cannot delete this feature flag because other flags depend on it: {flags}. Please update or delete the dependent flags first.',
  ),
  HR_FLAG_DISABLE_HAS_DEPENDENTS: entry(
    400,
    'validation_error',
    'invalid_input',
    'Cannot disable this feature flag because other flags depend on it: {flags}. Please update or delete the dependent flags first.',
  ),
  HR_FLAG_ENABLE_DEPENDS_ON_DISABLED: entry(
    400,
    'validation_error',
    'invalid_input',
    'Cannot enable this feature flag because it depends on disabled flags: {flags}. Please enable those flags first.',
  ),
  HR_FLAG_EDIT_DENIED: entry(403, 'authentication_error', 'permission_denied', "You don't have edit permissions for this feature flag."),
  HR_ROLE_ACCESS_EDIT_DENIED: entry(403, 'authentication_error', 'permission_denied', "You can't edit roles for this feature flag."),
  HR_ADMIN_REQUIRED: entry(403, 'authentication_error', 'permission_denied', 'You need to have admin level or higher.'),
  HR_ROLE_ACCESS_FLAG_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'Feature flag not found.'),
  HR_ROLE_NAME_TAKEN: entry(400, 'validation_error', 'unique', 'There is already a role with this name.', 'name'),
  HR_USER_ALREADY_IN_ROLE: entry(400, 'validation_error', 'invalid_input', 'User is already part of the role.'),
  // PostHog's database constraint on (role, feature_flag); a 500 there.
  HR_FLAG_ROLE_ACCESS_EXISTS: entry(400, 'validation_error', 'unique', 'The fields role, feature_flag must make a unique set.'),
  HR_RESOURCE_ACCESS_EXISTS: entry(400, 'validation_error', 'unique', 'This resource access already exists.', 'resource'),
  HR_USER_DOES_NOT_EXIST: entry(400, 'validation_error', 'invalid_input', 'User does not exist.'),

  // --- flag evaluation views and blast radius (management API) ---
  HR_DISTINCT_ID_REQUIRED: entry(400, 'validation_error', 'invalid_input', 'distinct_id is required'),
  HR_USER_DISTINCT_ID_REQUIRED: entry(400, 'validation_error', 'invalid_input', 'User distinct_id is required'),
  HR_GROUPS_PARAM_INVALID_JSON: entry(400, 'validation_error', 'invalid_input', 'Invalid JSON in groups parameter'),
  HR_GROUPS_PARAM_NOT_AN_OBJECT: entry(400, 'validation_error', 'invalid_input', 'groups must be a JSON object'),
  HR_BLAST_RADIUS_NO_CONDITION: entry(400, 'validation_error', 'invalid_input', 'Missing condition for which to get blast radius'),
  HR_BLAST_RADIUS_CONDITION_NOT_AN_OBJECT: entry(400, 'validation_error', 'invalid_input', 'condition must be an object'),
  HR_BLAST_RADIUS_PROPERTIES_NOT_A_LIST: entry(400, 'validation_error', 'invalid_input', 'condition.properties must be a list'),
  HR_BLAST_RADIUS_GROUP_TYPE_INDEX: entry(400, 'validation_error', 'invalid_input', 'Invalid group type index for feature flag condition.'),
  // Hedgerow's counter does not follow flag dependencies.
  HR_BLAST_RADIUS_FLAG_DEPENDENCY: entry(
    400,
    'validation_error',
    'invalid_input',
    'Flag dependencies cannot be counted in a blast radius.',
  ),
  HR_BLAST_RADIUS_UNAVAILABLE: entry(503, 'server_error', 'not_ready', 'Blast radius unavailable: {reason}'),

  // --- flag evaluation (/flags, /decide) ---
  // Rust flags service `api/errors.rs` (NoTokenError, MissingDistinctId); Django decide for `malformed_data`.
  HR_FLAGS_MISSING_TOKEN: entry(
    401,
    'authentication_error',
    'not_authenticated',
    'No API token provided. Please include a valid API token in your request.',
  ),
  // The reason is the capture decoding error the body met (empty, not gzip).
  HR_FLAGS_MALFORMED: entry(400, 'validation_error', 'malformed_data', 'Malformed request data: {reason}'),
  HR_FLAGS_EMPTY_BODY: entry(400, 'validation_error', 'malformed_data', 'Malformed request data: empty request body'),
  HR_FLAGS_INVALID_JSON: entry(400, 'validation_error', 'malformed_data', 'Malformed request data: invalid JSON'),
  HR_FLAGS_INVALID_LZ64: entry(400, 'validation_error', 'malformed_data', 'Malformed request data: invalid lz64 data'),
  HR_FLAGS_NOT_AN_OBJECT: entry(400, 'validation_error', 'malformed_data', 'Malformed request data: the body must be a JSON object'),
  HR_FLAGS_MISSING_DISTINCT_ID: entry(
    400,
    'validation_error',
    'missing_distinct_id',
    'The distinct_id field is missing from the request. Please include a valid identifier.',
  ),

  // --- cohorts ---
  // A multipart body (DRF's MultiPartParser → ParseError); the detail names the fault.
  HR_MULTIPART_PARSE: entry(400, 'invalid_request', 'parse_error', 'Multipart form parse error - {reason}'),
  // A static cohort's CSV upload (PostHog's CohortSerializer raises ValidationError({"csv": [...]})).
  HR_COHORT_CSV_EMPTY: entry(
    400,
    'validation_error',
    'invalid_input',
    'CSV file is empty. Please upload a CSV file with at least one row of data.',
    'csv',
  ),
  HR_COHORT_CSV_NO_ID_COLUMN: entry(
    400,
    'validation_error',
    'invalid_input',
    "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: {columns}",
    'csv',
  ),
  HR_COHORT_CSV_NO_IDS: entry(
    400,
    'validation_error',
    'invalid_input',
    'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.',
    'csv',
  ),
  HR_COHORT_CSV_ENCODING: entry(
    400,
    'validation_error',
    'invalid_input',
    'CSV file encoding is not supported. Please save your file as UTF-8 and try again.',
    'csv',
  ),
  HR_COHORT_CSV_FORMAT: entry(
    400,
    'validation_error',
    'invalid_input',
    'CSV file format is invalid. Please check your file format and try again.',
    'csv',
  ),
  // Hedgerow's own cap (src/cohorts/static-cohort-csv.ts); PostHog has none.
  HR_COHORT_CSV_TOO_MANY_IDS: entry(
    400,
    'validation_error',
    'invalid_input',
    'CSV file has more than {max_ids} IDs. Please split it and upload the parts one after another.',
    'csv',
  ),
  // `…/cohorts/:id/add_persons_to_static_cohort/`.
  HR_COHORT_NOT_STATIC: entry(400, 'validation_error', 'invalid_input', 'Can only add users to static cohorts'),
  HR_COHORT_PERSON_IDS_NOT_A_LIST: entry(400, 'validation_error', 'invalid_input', 'person_ids must be a list'),
  HR_COHORT_PERSON_IDS_EMPTY: entry(400, 'validation_error', 'invalid_input', 'person_ids cannot be empty'),
  HR_COHORT_PERSON_IDS_TOO_MANY: entry(400, 'validation_error', 'invalid_input', 'List size exceeds limit'),
  HR_COHORT_NO_VALID_PERSONS: entry(400, 'validation_error', 'invalid_input', 'No valid users to add to cohort'),
  // A cohort's `filters`.
  HR_COHORT_FILTERS_NOT_GROUPS: entry(
    400,
    'validation_error',
    'invalid_input',
    'Cohort filters must be property groups of the form {"type": "AND" | "OR", "values": [...]}.',
    'filters',
  ),
  HR_COHORT_GROUP_TYPE_INVALID: entry(400, 'validation_error', 'invalid_input', 'Property group type must be "AND" or "OR".', 'filters'),
  HR_COHORT_LOOP: entry(400, 'validation_error', 'invalid_input', 'Cohorts cannot reference other cohorts in a loop.', 'filters'),

  // --- events ---
  // EventViewSet.retrieve: an `:id` that Python's uuid.UUID does not read.
  HR_EVENT_UUID_INVALID: entry(400, 'validation_error', 'invalid', 'Invalid UUID'),
  HR_EVENT_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'No events exist for event UUID {uuid}'),
  HR_EVENTS_CURSOR_INVALID: entry(400, 'validation_error', 'invalid_input', 'cursor is not one this server produced', 'cursor'),
  HR_EVENTS_PERSON_ID_INVALID: entry(
    400,
    'validation_error',
    'invalid_input',
    "person_id must be a person's UUID or integer id",
    'person_id',
  ),
  HR_EVENTS_ORDER_NOT_A_LIST: entry(400, 'validation_error', 'invalid_input', 'orderBy must be a JSON list', 'orderBy'),
  HR_EVENTS_ORDER_UNSUPPORTED: entry(
    400,
    'validation_error',
    'invalid_input',
    'Hedgerow orders the events list by ["-timestamp"] or ["timestamp"] only',
    'orderBy',
  ),

  // --- list query parameters (the parameter is the attr) ---
  HR_QUERY_NOT_POSITIVE_INTEGER: entry(400, 'validation_error', 'invalid_input', '{name} must be a positive integer'),
  HR_QUERY_NEGATIVE_INTEGER: entry(400, 'validation_error', 'invalid_input', '{name} must be a non-negative integer'),
  HR_QUERY_NOT_A_DATE: entry(
    400,
    'validation_error',
    'invalid_input',
    '{name} must be an ISO-8601 date-time or a relative date such as -7d',
  ),
  HR_QUERY_UNSUPPORTED: entry(400, 'validation_error', 'invalid_input', 'Hedgerow does not support {name} on the {list}'),
  HR_QUERY_FILTER_UNSUPPORTED: entry(400, 'validation_error', 'invalid_input', 'Hedgerow does not filter the {list} by {name} yet'),
  HR_QUERY_PROPERTIES_UNPARSABLE: entry(400, 'validation_error', 'invalid_input', 'Properties are unparsable!', 'properties'),

  // --- persons and groups ---
  // PersonViewSet: an `:id` that is neither a UUID nor an integer (the detail names the id given).
  HR_PERSON_ID_INVALID: entry(
    400,
    'validation_error',
    'invalid_input',
    'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id={id} instead.',
  ),
  HR_PERSON_CREATE_NOT_ALLOWED: entry(
    405,
    'invalid_request',
    'method_not_allowed',
    'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
  ),
  // GroupsViewSet.list without `?group_type_index=` (find answers the same; PostHog answers 500 there).
  HR_GROUP_TYPE_INDEX_REQUIRED: entry(
    400,
    'validation_error',
    'invalid_input',
    'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.',
    'group_type_index',
  ),
  // Django's IntegerField message for a `group_type_index` that is not one.
  HR_GROUP_TYPE_INDEX_INVALID: entry(
    400,
    'validation_error',
    'invalid_input',
    "Field 'group_type_index' expected a number but got '{value}'.",
    'group_type_index',
  ),
  // DRF CursorPagination: a `cursor` query parameter that does not decode.
  HR_INVALID_CURSOR: entry(404, 'invalid_request', 'not_found', 'Invalid cursor'),

  // --- routing ---
  HR_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'Not found.'),
  HR_METHOD_NOT_ALLOWED: entry(405, 'invalid_request', 'method_not_allowed', 'Method "{method}" not allowed.'),

  // --- HTTP framing (the request line, headers and body framing; every one closes the connection) ---
  // The reason is node:http's (llhttp's) own.
  HR_MALFORMED_REQUEST: entry(400, 'invalid_request', 'malformed_request', 'malformed HTTP request: {reason}'),
  // Header values are shown cut to 64 characters (src/http/framing.ts).
  HR_MALFORMED_CONTENT_LENGTH: entry(400, 'invalid_request', 'malformed_request', 'malformed Content-Length: {value}'),
  HR_HOST_MISSING: entry(400, 'invalid_request', 'malformed_request', 'an HTTP/1.1 request must have a Host header'),
  HR_CONTENT_LENGTH_WITH_TRANSFER_ENCODING: entry(
    400,
    'invalid_request',
    'malformed_request',
    'Content-Length and Transfer-Encoding together: the body length is ambiguous',
  ),
  HR_CONFLICTING_CONTENT_LENGTH: entry(
    400,
    'invalid_request',
    'malformed_request',
    'conflicting Content-Length headers ({values}): the body length is ambiguous',
  ),
  HR_REPEATED_CONTENT_LENGTH: entry(
    400,
    'invalid_request',
    'malformed_request',
    'more than one Content-Length header: the body length is ambiguous',
  ),
  HR_REQUEST_HEAD_TIMEOUT: entry(408, 'invalid_request', 'request_timeout', 'the request head did not arrive in time'),
  HR_REQUEST_BODY_IDLE: entry(408, 'invalid_request', 'request_timeout', 'the request body stalled: no bytes arrived for {idle_ms} ms'),
  HR_REQUEST_BODY_TIMEOUT: entry(408, 'invalid_request', 'request_timeout', 'the request body took longer than {seconds} s'),
  HR_HEADERS_TOO_LARGE: entry(431, 'invalid_request', 'request_header_fields_too_large', 'request line and headers over 16 KB'),
  HR_TRANSFER_ENCODING_UNSUPPORTED: entry(
    501,
    'invalid_request',
    'not_implemented',
    'Transfer-Encoding other than chunked is not supported',
  ),
  HR_TRANSFER_ENCODING_NOT_CHUNKED: entry(
    501,
    'invalid_request',
    'not_implemented',
    'Transfer-Encoding "{value}" is not supported: send chunked or a Content-Length',
  ),
  HR_HTTP_VERSION_UNSUPPORTED: entry(505, 'invalid_request', 'http_version_not_supported', 'HTTP version not supported: send HTTP/1.1'),

  // --- server ---
  HR_NOT_READY: entry(503, 'server_error', 'not_ready', 'Hedgerow is starting or shutting down; retry shortly.'),
  // A commit of accepted events failed; the reason is the store's error.
  HR_STORE_FAILED: entry(503, 'server_error', 'server_error', 'Unable to store event: {reason}'),
  // Capture on the main thread met a bug, or a pool worker failed a capture task (SDKs retry a 503).
  HR_CAPTURE_GROUP_FAILED: entry(503, 'server_error', 'server_error', 'capture failed: {reason}'),
  HR_CAPTURE_WORKER_FAILED: entry(503, 'server_error', 'server_error', 'worker failed: {reason}'),
  // The store refuses writes (src/ingest/ingest-pipeline.ts, src/http/handle-request.ts); the
  // reason is the store's error in words, or the free-space reserve's (src/store/disk-reserve.ts).
  HR_STORE_UNAVAILABLE: entry(
    503,
    'server_error',
    'store_unavailable',
    'Hedgerow cannot write to its store right now ({reason}); retry shortly.',
  ),
  // Cluster mode: JetStream did not acknowledge a block (src/cluster/block-publisher.ts); nothing
  // of the request may be assumed held, and SDKs retry a 503.
  HR_CLUSTER_UNAVAILABLE: entry(503, 'server_error', 'not_ready', 'The cluster did not take the events ({reason}); retry shortly.'),
  // Cluster mode: a management write's command was not held by the stream, or not applied on the
  // receiving node in time (src/cluster/replicated-writes.ts); it may still be applied.
  HR_CLUSTER_WRITE_UNAVAILABLE: entry(503, 'server_error', 'not_ready', 'The cluster did not apply the change ({reason}); retry shortly.'),
  HR_CAPTURE_OVERLOADED: entry(503, 'server_error', 'overloaded', 'Too many events are waiting to be stored. Please try again shortly.'),
  HR_INTERNAL: entry(500, 'server_error', 'server_error', 'Internal server error.'),
  // A bug met by a capture group or a /flags request: the reason is what was thrown.
  HR_INTERNAL_ERROR: entry(500, 'server_error', 'server_error', 'Internal error: {reason}'),
  // A bug in answering a capture group once its outcomes came back from the pool.
  HR_CAPTURE_SETTLE_FAILED: entry(500, 'server_error', 'server_error', 'Internal error: capture failed: {reason}'),
  // A pool worker failed a /flags task.
  HR_FLAGS_WORKER_FAILED: entry(500, 'server_error', 'server_error', 'worker failed: {reason}'),
});

export type ErrorCode = keyof typeof ERRORS;

/** The placeholder names of a message template (braces around other text, such as JSON, are text). */
type Placeholders<M extends string> = M extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${string}${' ' | '"' | "'" | '{' | ':'}${string}` ? never : Name) | Placeholders<Rest>
  : never;

type PlaceholdersOf<C extends ErrorCode> = Placeholders<(typeof ERRORS)[C]['message']>;

/** Codes whose message is a template: thrown with `catalogueError` and their parameters. */
export type TemplateCode = { [C in ErrorCode]: [PlaceholdersOf<C>] extends [never] ? never : C }[ErrorCode];

/** Codes whose message is fixed text. */
export type FixedCode = Exclude<ErrorCode, TemplateCode>;

/** The parameters of a template code's message. */
export type ErrorParams<C extends TemplateCode> = { readonly [Name in PlaceholdersOf<C>]: string | number };

const PLACEHOLDER = /\{(\w+)\}/g;

/** A template's text with each `{name}` replaced by `params[name]` (in one pass: values are not read as templates). */
export function fillTemplate(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => String(params[name]));
}

declare const catalogued: unique symbol;

/** A detail made in this module: a filled-in template, or a serialized error's detail. */
type CatalogueDetail = string & { readonly [catalogued]: true };

/** The JSON body PostHog sends for an error. */
export interface PostHogErrorBody {
  type: PostHogErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class HedgerowError extends Error {
  readonly hedgerowCode: ErrorCode;
  readonly status: number;
  readonly attr: string | null;

  /**
   * The error of a fixed code, with its catalogue message; `attr` overrides the catalogue attr.
   * A template code's error comes from `catalogueError`, which fills its message in: only this
   * module makes a `CatalogueDetail`, so no other code writes a detail.
   */
  constructor(code: FixedCode, detail?: undefined, attr?: string | null);
  constructor(code: ErrorCode, detail: CatalogueDetail, attr?: string | null);
  constructor(code: ErrorCode, detail?: CatalogueDetail, attr?: string | null) {
    const e = ERRORS[code];
    super(detail ?? e.message);
    this.name = 'HedgerowError';
    this.hedgerowCode = code;
    this.status = e.status;
    this.attr = attr === undefined ? e.attr : attr;
  }

  toBody(): PostHogErrorBody {
    const e = ERRORS[this.hedgerowCode];
    return { type: e.type, code: e.code, detail: this.message, attr: this.attr };
  }
}

/** The error of a template code, its message filled in with `params`; `attr` overrides the catalogue attr. */
export function catalogueError<C extends TemplateCode>(code: C, params: ErrorParams<C>, attr?: string | null): HedgerowError {
  const e: CatalogueEntry = ERRORS[code as ErrorCode];
  return new HedgerowError(code, fillTemplate(e.message, params) as CatalogueDetail, attr);
}

export function isHedgerowError(err: unknown): err is HedgerowError {
  return err instanceof HedgerowError;
}

/**
 * A plain-data form of an error, used to carry catalogued errors across the worker boundary
 * (structured clone drops class identity).
 */
export interface SerializedError {
  hedgerowCode: ErrorCode;
  detail: string;
  attr: string | null;
}

export function serializeError(err: HedgerowError): SerializedError {
  return { hedgerowCode: err.hedgerowCode, detail: err.message, attr: err.attr };
}

export function deserializeError(s: SerializedError): HedgerowError {
  // The detail was made here, in the thread that serialized the error.
  return new HedgerowError(s.hedgerowCode, s.detail as CatalogueDetail, s.attr);
}
