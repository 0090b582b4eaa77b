-- POSTs `/flags/?v=2` for a random distinct id per request, as posthog-node's getAllFlags does.
-- Usage: wrk ... -s flags.lua <url> -- <project token> <persons | new> [check]
-- The body is {"token":"…","distinct_id":"…"} with a 13-character id, so every body differs and
-- none changes length: with <persons>, a seeded person's `person-NNNNNN`, drawn uniformly from
-- 0 … persons-1; with `new`, `anon-XXXXXXXX` (31 random bits in hex), a distinct id no scenario
-- stores. Random numbers come from math.random, seeded per thread.
-- With `check` (daemon runs only: the ceiling answers {"status":1}) every answer must be a 200
-- whose body says "errorsWhileComputingFlags":false; others count as `wrong` (report.lua). The
-- daemon answers a timed-out evaluation with a flag-less 200 and errorsWhileComputingFlags true,
-- which the status alone would count as served. The runner passes `check` only with
-- --check-bodies: by default it checks the daemon's hedgerow_flags_errors_total instead, since
-- the check costs wrk ~7 µs of CPU per request (reading each ~13 KB body into Lua).
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

local DISTINCT = '@DISTINCT@@@@'
local USAGE = 'usage: flags.lua -- <project token> <persons | new> [check]'
local head, tail, persons = nil, nil, nil

local OK_MARKER = '"errorsWhileComputingFlags":false'
wrong = 0

local function check(status, headers, body)
  if status ~= 200 or not body or not body:find(OK_MARKER, 1, true) then wrong = wrong + 1 end
end

function init(args)
  local token = assert(args[1], USAGE)
  if args[2] ~= 'new' then
    persons = assert(tonumber(args[2]), USAGE)
    assert(persons >= 1 and persons <= 1000000, 'persons must be 1 … 1,000,000 (six digits)')
  end
  math.randomseed(os.time() * 1000 + (thread_no or 0) * 7919)
  local body = '{"token":"' .. token .. '","distinct_id":"' .. DISTINCT .. '"}'
  local req = wrk.format('POST', nil, { ['Content-Type'] = 'application/json' }, body)
  local at = assert(req:find(DISTINCT, 1, true))
  head, tail = req:sub(1, at - 1), req:sub(at + #DISTINCT)
  -- wrk asks whether `response` exists after init: defining it here turns body checks on.
  if args[3] == 'check' then response = check end
end

function request()
  if persons then return head .. string.format('person-%06d', math.random(0, persons - 1)) .. tail end
  return head .. string.format('anon-%08x', math.random(0, 0x7fffffff)) .. tail
end
