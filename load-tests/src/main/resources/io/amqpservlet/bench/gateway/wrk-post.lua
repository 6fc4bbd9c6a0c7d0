-- wrk script of load-tests/bench gateway: POSTs the same 100-byte body our generator sends, optionally paced to a
-- fixed rate per wrk thread, and prints the summary and latency percentiles in lines the suite parses.
-- Arguments (after "--"): body size in bytes, then the interval between a thread's requests in microseconds
-- (0 = as fast as possible).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local ts = ffi.new("bench_timespec")

local function now_us()
   ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
   return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end

local interval_us = 0
local next_due = 0

function init(args)
   local size = tonumber(args[1] or "100")
   local chars = {}
   for i = 0, size - 1 do
      chars[#chars + 1] = string.char(97 + i % 26)
   end
   wrk.method = "POST"
   wrk.body = table.concat(chars)
   wrk.headers["Content-Type"] = "application/octet-stream"
   interval_us = tonumber(args[2] or "0")
end

-- wrk asks before each request how many milliseconds to wait. Each call takes the thread's next slot in a fixed
-- schedule, so the thread's rate stays fixed while responses are fast enough; wrk's own latency still counts
-- from the actual send (wrk is not wrk2), which a backlog makes look better than it is.
function delay()
   if interval_us <= 0 then
      return 0
   end
   local now = now_us()
   if next_due == 0 then
      next_due = now
   end
   next_due = next_due + interval_us
   local wait = next_due - interval_us - now
   if wait <= 0 then
      return 0
   end
   return math.floor(wait / 1000)
end

function done(summary, latency, requests)
   io.write(string.format("bench-wrk requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
      summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read,
      summary.errors.write, summary.errors.status, summary.errors.timeout))
   for _, p in ipairs({50, 90, 99, 99.9, 99.99}) do
      io.write(string.format("bench-wrk-latency p%s %d\n", tostring(p), latency:percentile(p)))
   end
   io.write(string.format("bench-wrk-latency max %d\n", latency.max))
   io.write(string.format("bench-wrk-latency mean %.1f\n", latency.mean))
end
