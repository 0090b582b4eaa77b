-- POSTs gzip'd posthog-node batches with $identify and $set events, rotating over several bodies
-- (the same body repeated would only update the same persons). Each thread formats every request
-- once and takes them round-robin, starting at its own offset.
-- With a first argument `rate=<requests/s>`, each wrk thread sends at that fixed rate (paced on a
-- monotonic clock, over whichever connections are free) instead of as fast as answers come back.
-- Usage: wrk ... -s persons.lua <url> -- [rate=<n>] <persons-00.json.gz> [<persons-01.json.gz> …]
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

local requests, at = {}, 0
local interval_ms, next_ms = nil, nil

local ffi = require('ffi')
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } hedgerow_timespec;
  int clock_gettime(int clock_id, hedgerow_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new('hedgerow_timespec')
local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

function init(args)
  local files = {}
  for _, a in ipairs(args) do
    local rate = a:match('^rate=(.+)$')
    if rate then interval_ms = 1000 / assert(tonumber(rate), 'rate=<requests/s>') else files[#files + 1] = a end
  end
  assert(#files >= 1, 'usage: persons.lua -- [rate=<n>] <body.json.gz> [<body.json.gz> …]')
  local headers = { ['Content-Type'] = 'application/json', ['Content-Encoding'] = 'gzip' }
  for i, file in ipairs(files) do
    local f = assert(io.open(file, 'rb'))
    requests[i] = wrk.format('POST', nil, headers, f:read('*a'))
    f:close()
  end
  at = ((thread_no or 0) * 7) % #requests
  if interval_ms then
    -- wrk calls delay() before every request once it is defined.
    function delay()
      local t = now_ms()
      -- The schedule does not bank time while every connection was busy: no bursts to catch up.
      if next_ms == nil or next_ms < t - interval_ms then next_ms = t end
      next_ms = next_ms + interval_ms
      return math.max(0, math.floor(next_ms - t))
    end
  end
end

function request()
  at = at % #requests + 1
  return requests[at]
end
