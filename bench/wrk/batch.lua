-- POSTs the same gzip'd posthog-node batch on every request (a static request: wrk formats it once).
-- Usage: wrk ... -s batch.lua <url> -- <batch.json.gz>
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

function init(args)
  local f = assert(io.open(args[1], 'rb'))
  wrk.body = f:read('*a')
  f:close()
  wrk.method = 'POST'
  wrk.headers['Content-Type'] = 'application/json'
  wrk.headers['Content-Encoding'] = 'gzip'
end
