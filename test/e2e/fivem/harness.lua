-- A stand-in for the FiveM server runtime, just big enough to run integrations/fivem for real under
-- Debian's Lua 5.4: the natives the resource uses, a cooperative scheduler for Citizen threads and
-- timers, and PerformHttpRequest through curl (loopback addresses only). Virtual time (GetGameTimer)
-- advances only by sleeping for real, so it never runs ahead of the platform's clock.
--
--   lua5.4 harness.lua RESOURCE_DIR
-- Environment: HARNESS_URL, HARNESS_SECRET (the convars matjar_url, matjar_fivem_secret), HARNESS_DIR
-- (scratch directory), HARNESS_RUN_MS (how long to run), HARNESS_CONFIG (JSON of Config overrides),
-- HARNESS_PLAYER (identifiers, comma separated, of player 1), HARNESS_JOIN_MS (when player 1 joins),
-- HARNESS_FAULTS (comma list of METHOD:drop | METHOD:lose | METHOD:429, consumed in order by the first
-- requests of that method: `drop` never sends the request, `lose` sends it and loses the answer, `429`
-- answers 429 without sending).
-- Output, one line each: EXEC <ms> <command> | HTTP <ms> <method> <path> <status> <fault> | ERROR ... | DONE

local here = arg[0]:match('^(.*)/[^/]*$') or '.'
package.path = here .. '/?.lua;' .. package.path
json = require('json')

local resourceDir = assert(arg[1], 'usage: harness.lua RESOURCE_DIR')
local scratch = assert(os.getenv('HARNESS_DIR'), 'HARNESS_DIR is required')
local runMs = tonumber(os.getenv('HARNESS_RUN_MS') or '10000')
local joinMs = tonumber(os.getenv('HARNESS_JOIN_MS') or '-1')
local playerIds = {}
for id in (os.getenv('HARNESS_PLAYER') or ''):gmatch('[^,]+') do playerIds[#playerIds + 1] = id end

local faults = {}
for entry in (os.getenv('HARNESS_FAULTS') or ''):gmatch('[^,]+') do
  local method, action = entry:match('^(%u+):(%w+)$')
  faults[#faults + 1] = { method = method, action = action }
end

local function out(...)
  io.stdout:write(table.concat({ ... }, '\t'), '\n')
  io.stdout:flush()
end

-- --------------------------------------------------------------------------------- time and threads

local clock = 0
local tasks = {} -- { at = ms, run = function } (timers and HTTP callbacks)
local threads = {} -- { co = coroutine, at = ms }

local function report(err)
  out('ERROR', (tostring(err):gsub('\n', ' | ')))
end

local function schedule(at, fn)
  tasks[#tasks + 1] = { at = at, run = fn }
end

Citizen = {}
function Citizen.CreateThread(fn)
  threads[#threads + 1] = { co = coroutine.create(fn), at = clock }
end
function Citizen.Wait(ms)
  coroutine.yield(ms or 0)
end
Wait = Citizen.Wait
CreateThread = Citizen.CreateThread
function SetTimeout(ms, fn)
  schedule(clock + (ms or 0), fn)
end
function GetGameTimer()
  return clock
end

-- --------------------------------------------------------------------------------- natives

local convars = {
  matjar_url = os.getenv('HARNESS_URL'),
  matjar_fivem_secret = os.getenv('HARNESS_SECRET'),
}
function GetConvar(name, default)
  return convars[name] or default
end
function GetCurrentResourceName()
  return 'matjar'
end
function SaveResourceFile(_, name, data)
  local f = assert(io.open(scratch .. '/' .. name, 'wb'))
  f:write(data)
  f:close()
  return true
end
function LoadResourceFile(_, name)
  local f = io.open(scratch .. '/' .. name, 'rb')
  if not f then return nil end
  local data = f:read('a')
  f:close()
  return data
end

local online = {} -- server id -> identifiers
function GetPlayers()
  local list = {}
  for id in pairs(online) do list[#list + 1] = tostring(id) end
  table.sort(list)
  return list
end
function GetPlayerIdentifiers(source)
  return online[tonumber(source)] or {}
end
function GetPlayerName(source)
  return online[tonumber(source)] and ('Player' .. tostring(source)) or nil
end

function ExecuteCommand(command)
  out('EXEC', clock, command)
end

local handlers = {}
function AddEventHandler(name, fn)
  handlers[name] = handlers[name] or {}
  table.insert(handlers[name], fn)
end
local function trigger(name, src, ...)
  for _, fn in ipairs(handlers[name] or {}) do
    source = src
    local ok, err = xpcall(fn, debug.traceback, ...)
    if not ok then report(err) end
  end
  source = nil
end

local function shellQuote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function readFile(path)
  local f = io.open(path, 'rb')
  if not f then return '' end
  local data = f:read('a')
  f:close()
  return data
end

local function takeFault(method)
  for i, fault in ipairs(faults) do
    if fault.method == method then
      table.remove(faults, i)
      return fault.action
    end
  end
  return nil
end

local requestCount = 0
function PerformHttpRequest(url, cb, method, data, headers)
  method = method or 'GET'
  assert(url:match('^http://127%.0%.0%.1[:/]') or url:match('^http://%[::1%][:/]'), 'loopback only: ' .. url)
  local path = url:gsub('^http://[^/]+', '')
  local fault = takeFault(method)
  if fault == 'drop' or fault == '429' then
    local status = fault == 'drop' and 0 or 429
    out('HTTP', clock, method, path, status, fault)
    local answerHeaders = fault == '429' and { ['Retry-After'] = '2' } or {}
    schedule(clock, function() cb(status, nil, answerHeaders, fault) end)
    return
  end
  requestCount = requestCount + 1
  local base = ('%s/req%d'):format(scratch, requestCount)
  local bodyFile = assert(io.open(base .. '.in', 'wb'))
  bodyFile:write(data or '')
  bodyFile:close()
  local parts = { 'curl -s -S --max-time 10 -X', shellQuote(method), '-o', shellQuote(base .. '.out'), '-D',
    shellQuote(base .. '.hdr'), "-w '%{http_code}'" }
  for name, value in pairs(headers or {}) do
    parts[#parts + 1] = '-H ' .. shellQuote(name .. ': ' .. value)
  end
  if data and data ~= '' then parts[#parts + 1] = '--data-binary @' .. shellQuote(base .. '.in') end
  parts[#parts + 1] = shellQuote(url)
  local pipe = assert(io.popen(table.concat(parts, ' ') .. ' 2>/dev/null'))
  local status = tonumber(pipe:read('a')) or 0
  pipe:close()
  local text = readFile(base .. '.out')
  local answerHeaders = {}
  for line in readFile(base .. '.hdr'):gmatch('[^\r\n]+') do
    local name, value = line:match('^([^:]+):%s*(.*)$')
    if name then answerHeaders[name] = value end
  end
  out('HTTP', clock, method, path, status, fault or '-')
  if fault == 'lose' then status, text = 0, nil end
  -- Like FXServer: no body for an error status.
  if status >= 400 then text = nil end
  schedule(clock, function() cb(status, text, answerHeaders, nil) end)
end

-- --------------------------------------------------------------------------------- the resource

dofile(resourceDir .. '/config.lua')
local overrides = os.getenv('HARNESS_CONFIG')
if overrides and overrides ~= '' then
  for key, value in pairs(json.decode(overrides)) do Config[key] = value end
end
dofile(resourceDir .. '/server.lua')

if joinMs >= 0 then
  schedule(joinMs, function()
    online[1] = playerIds
    trigger('playerJoining', 1, '65535')
  end)
end

-- --------------------------------------------------------------------------------- the loop

local function step()
  local ran = false
  -- Due tasks, in time order.
  table.sort(tasks, function(a, b) return a.at < b.at end)
  while tasks[1] and tasks[1].at <= clock do
    local task = table.remove(tasks, 1)
    local ok, err = xpcall(task.run, debug.traceback)
    if not ok then report(err) end
    ran = true
  end
  for i = #threads, 1, -1 do
    local t = threads[i]
    if t.at <= clock then
      local ok, waitMs = coroutine.resume(t.co)
      if not ok then
        report(debug.traceback(t.co, waitMs))
        table.remove(threads, i)
      elseif coroutine.status(t.co) == 'dead' then
        table.remove(threads, i)
      else
        t.at = clock + math.max(0, waitMs or 0)
      end
      ran = true
    end
  end
  return ran
end

while clock <= runMs do
  if not step() then
    local nextAt = math.huge
    for _, task in ipairs(tasks) do nextAt = math.min(nextAt, task.at) end
    for _, t in ipairs(threads) do nextAt = math.min(nextAt, t.at) end
    if nextAt == math.huge or nextAt > runMs then break end
    os.execute(('sleep %.3f'):format((nextAt - clock) / 1000))
    clock = nextAt
  end
end
out('DONE', clock)
