-- POSTs gzip'd posthog-node batches with $identify and $set events, rotating over several bodies
-- (the same body repeated would only update the same persons). Each thread formats every request
-- once and takes them round-robin, starting at its own offset.
-- Usage: wrk ... -s persons.lua <url> -- <persons-00.json.gz> [<persons-01.json.gz> …]
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

local requests, at = {}, 0

function init(args)
  assert(#args >= 1, 'usage: persons.lua -- <body.json.gz> [<body.json.gz> …]')
  local headers = { ['Content-Type'] = 'application/json', ['Content-Encoding'] = 'gzip' }
  for i, file in ipairs(args) do
    local f = assert(io.open(file, 'rb'))
    requests[i] = wrk.format('POST', nil, headers, f:read('*a'))
    f:close()
  end
  at = ((thread_no or 0) * 7) % #requests
end

function request()
  at = at % #requests + 1
  return requests[at]
end
