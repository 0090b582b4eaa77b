-- POSTs one uncompressed posthog-node event per request.
-- Usage: wrk ... -s capture.lua <url> -- <template.json> [run=<n>] [known=<persons>,<percent>]
-- The template (bench/payloads.ts) holds two fixed-width placeholders, replaced per request by the
-- uuid's last group and the distinct id: every body differs, its length does not.
-- Distinct ids are new ones, `new-RRTCCCCCC` (run, thread and counter in hex), so every request
-- makes a new person as long as each run of a benchmark passes its own `run` (0 … 255) and sends
-- under 16.7 million requests per thread. The uuid's last group is `RRTTCCCCCCCC` (the same three).
-- With `known=N,P`, P% of the requests (drawn at random) name one of N stored persons instead,
-- `person-NNNNNN` drawn uniformly from 0 … N-1 (bench/flag-fixtures.ts' ids).
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

local UUID_TAIL, DISTINCT = '@UUIDTAIL@@@', '@DISTINCT@@@@'
local pieces, counter, tid, run = nil, 0, 0, 0
local known_persons, known_share = 0, 0

local function split(s, marker)
  local at = assert(s:find(marker, 1, true), 'placeholder ' .. marker .. ' missing')
  return s:sub(1, at - 1), s:sub(at + #marker)
end

function init(args)
  tid = thread_no or 0
  assert(tid < 16, 'capture.lua numbers at most 16 threads')
  for i = 2, #args do
    local r = args[i]:match('^run=(%d+)$')
    local n, p = args[i]:match('^known=(%d+),(%d+)$')
    if r then
      run = tonumber(r)
      assert(run <= 255, 'run must be 0 … 255')
    elseif n then
      known_persons, known_share = tonumber(n), tonumber(p) / 100
      assert(known_persons >= 1 and known_persons <= 1000000, 'known persons must be 1 … 1,000,000 (six digits)')
      assert(known_share <= 1, 'the known share is a percentage')
    else
      error('usage: capture.lua -- <template.json> [run=<n>] [known=<persons>,<percent>]; got ' .. args[i])
    end
  end
  math.randomseed(os.time() * 1000 + tid * 7919 + run * 104729)
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
  local distinct
  if known_share > 0 and math.random() < known_share then
    distinct = string.format('person-%06d', math.random(0, known_persons - 1))
  else
    distinct = string.format('new-%02x%x%06x', run, tid, counter % 0x1000000)
  end
  return pieces[1] .. distinct .. pieces[2] .. string.format('%02x%02x%08x', run, tid, counter) .. pieces[3]
end
