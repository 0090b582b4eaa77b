-- POSTs one uncompressed posthog-node event per request. Usage: wrk ... -s capture.lua <url> -- <template.json>
-- The template (bench/payloads.ts) holds two fixed-width placeholders, replaced per request by the
-- uuid's last group (thread, counter) and a distinct_id suffix: every body differs, its length does not.
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

local UUID_TAIL, DISTINCT = '@UUIDTAIL@@@', '@DIST@'
local pieces, counter, tid = nil, 0, 0

local function split(s, marker)
  local at = assert(s:find(marker, 1, true), 'placeholder ' .. marker .. ' missing')
  return s:sub(1, at - 1), s:sub(at + #marker)
end

function init(args)
  tid = thread_no or 0
  local f = assert(io.open(args[1], 'rb'))
  local body = f:read('*a')
  f:close()
  local req = wrk.format('POST', nil, { ['Content-Type'] = 'application/json' }, body)
  local head, rest = split(req, DISTINCT)
  local mid, tail = split(rest, UUID_TAIL)
  pieces = { head, mid, tail }
end

function request()
  counter = counter + 1
  return pieces[1] .. string.format('%06d', counter % 1000000) .. pieces[2]
    .. string.format('%04x%08x', tid, counter) .. pieces[3]
end
