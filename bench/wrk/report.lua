-- Shared by the wrk scripts: prints one machine-readable line that bench/wrk-runner.ts parses.
-- Latencies are in microseconds; errors.status counts responses with a status above 399;
-- `wrong` counts answers a script's response() check refused (a global of each thread's state,
-- summed over the threads in `threads`; 0 for scripts that check nothing).
threads = {}
local next_thread = 0

-- Runs in the main Lua state for each thread: numbers it (`thread_no`, a global of that thread's
-- state, for per-thread seeds and offsets) and keeps it for done().
function setup(thread)
  thread:set('thread_no', next_thread)
  next_thread = next_thread + 1
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local e = summary.errors
  local wrong = 0
  for _, t in ipairs(threads) do wrong = wrong + (t:get('wrong') or 0) end
  io.write(string.format(
    'WRK_RESULT {"duration_us":%d,"requests":%d,"bytes":%d,"wrong":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"mean":%.1f,"stdev":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.duration, summary.requests, summary.bytes, wrong,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
