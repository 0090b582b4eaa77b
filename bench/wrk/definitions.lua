-- GETs the flag definitions with the ETag of the last answer, as a polling local-evaluation SDK
-- does between changes: the daemon answers 304 with no body. A static request (wrk formats it once).
-- Usage: wrk ... -s definitions.lua <url with ?token=…&send_cohorts> -- <personal API key> <etag>
dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')

function init(args)
  local key = assert(args[1], 'usage: definitions.lua -- <personal API key> <etag>')
  local etag = assert(args[2], 'usage: definitions.lua -- <personal API key> <etag>')
  wrk.method = 'GET'
  wrk.headers['Authorization'] = 'Bearer ' .. key
  wrk.headers['If-None-Match'] = etag
end
