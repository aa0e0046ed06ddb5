-- Matjar for FiveM: runs the commands that purchases queued, each once.
--
-- How it works (README.md has the details):
--   * GET  /api/fivem/queue                     commands that need no online player, and the ids of
--                                               players with commands waiting for them online;
--   * GET  /api/fivem/queue/online/{playerId}   one online player's commands;
--   * DELETE /api/fivem/queue {"ids": [...]}    acknowledges commands that ran.
-- Every command listed is leased to this server for a while; a command this server ran is remembered
-- (and saved to a file) until the platform confirms its acknowledgement, so a lost acknowledgement or a
-- command listed again never runs it twice. The platform sets the pace with `next_check`.

local RESOURCE = GetCurrentResourceName()

local function setting(convar, fallback)
  local value = GetConvar(convar, '')
  if value ~= nil and value ~= '' then return value end
  return fallback
end

local baseUrl = (setting('matjar_url', Config.BaseUrl or '')):gsub('/+$', '')
local secret = setting('matjar_fivem_secret', Config.Secret or '')

local function log(message)
  print(('[%s] %s'):format(RESOURCE, message))
end

local function trace(message)
  if Config.Debug then log(message) end
end

local function now()
  return GetGameTimer()
end

-- ------------------------------------------------------------------------------------------- state

-- id -> true: ran here, acknowledgement not yet confirmed by the platform.
local unacknowledged = {}
-- player id (as the platform lists it) -> true: has commands waiting for them online.
local waitingPlayers = {}
-- player id -> true: a request for that player's commands is on its way.
local playerRequests = {}
local pollInFlight = false
local ackInFlight = false
local ackScheduled = false
local nextPollAt = 0
local pollBackoff = 0
local ackBackoff = 0

local function idOf(value)
  local n = tonumber(value)
  if n == nil then return nil end
  return math.tointeger(n) or n
end

local function sortedIds(set)
  local ids = {}
  for id in pairs(set) do ids[#ids + 1] = id end
  table.sort(ids)
  return ids
end

local function savePending()
  local data = json.encode(sortedIds(unacknowledged))
  SaveResourceFile(RESOURCE, Config.PendingFile, data, -1)
end

local function loadPending()
  local data = LoadResourceFile(RESOURCE, Config.PendingFile)
  if not data or data == '' then return end
  local ok, ids = pcall(json.decode, data)
  if not ok or type(ids) ~= 'table' then return end
  for _, value in ipairs(ids) do
    local id = idOf(value)
    if id then unacknowledged[id] = true end
  end
end

-- ------------------------------------------------------------------------------------------- HTTP

local function header(headers, name)
  if type(headers) ~= 'table' then return nil end
  local wanted = name:lower()
  for key, value in pairs(headers) do
    if tostring(key):lower() == wanted then return value end
  end
  return nil
end

-- Calls the platform; `done(status, data, headers)` gets the decoded `data` of a success envelope
-- (nil otherwise). PerformHttpRequest gives no body for an error status, and status 0 when the request
-- failed on the way (no answer).
local function call(method, path, body, done)
  local payload = body and json.encode(body) or ''
  PerformHttpRequest(baseUrl .. path, function(status, text, headers)
    local decoded = nil
    if type(text) == 'string' and text ~= '' then
      local ok, value = pcall(json.decode, text)
      if ok and type(value) == 'table' then decoded = value end
    end
    trace(('%s %s -> %s'):format(method, path, tostring(status)))
    done(tonumber(status) or 0, decoded and decoded.data or nil, headers, decoded)
  end, method, payload, {
    ['X-FiveM-Secret'] = secret,
    ['Content-Type'] = 'application/json',
    ['Accept'] = 'application/json',
  })
end

-- Seconds to wait after a failed request: the platform's `next_check` or Retry-After on a 429, else an
-- exponential back-off.
local function failureDelay(status, headers, envelope, previous)
  if status == 429 then
    local told = tonumber(envelope and envelope.next_check) or tonumber(header(headers, 'Retry-After'))
    if told and told > 0 then return told end
  end
  if status == 401 then
    log('the platform refused the secret (401): check matjar_fivem_secret / Config.Secret')
    return Config.BackoffMaxSeconds
  end
  if previous <= 0 then return Config.BackoffStartSeconds end
  return math.min(previous * 2, Config.BackoffMaxSeconds)
end

-- ------------------------------------------------------------------------------------------- commands

local function connected(source)
  return source ~= nil and GetPlayerName(source) ~= nil
end

local function hasRoom(command, source)
  local slots = tonumber(command.inventory_slots)
  if not slots or source == nil or type(Config.FreeSlots) ~= 'function' then return true end
  local ok, free = pcall(Config.FreeSlots, source)
  if not ok or free == nil then return true end
  return free >= slots
end

local scheduleAck

-- Runs each command not run before. A command skipped here (player gone, no room) is not acknowledged:
-- the platform lists it again when its lease ends.
local function runCommands(commands, source)
  local ran = false
  for _, command in ipairs(commands or {}) do
    local id = idOf(command.id)
    if id == nil or type(command.command) ~= 'string' then
      log('ignoring a malformed command from the platform')
    elseif unacknowledged[id] then
      trace(('command %s ran already; acknowledging it again'):format(id))
      ran = true
    elseif source ~= nil and not connected(source) then
      trace(('player %s left before command %s ran; it will come back'):format(source, id))
    elseif not hasRoom(command, source) then
      trace(('player %s has no room for command %s yet'):format(source, id))
    else
      local text = command.command
      if source ~= nil then text = text:gsub('{server_id}', tostring(source)) end
      -- Remembered before it runs: should it throw, it must still never run twice.
      unacknowledged[id] = true
      savePending()
      local ok, err = pcall(ExecuteCommand, text)
      if not ok then log(('command %s failed: %s'):format(id, tostring(err))) end
      trace(('ran command %s: %s'):format(id, text))
      ran = true
    end
  end
  if ran then scheduleAck(Config.AckDelayMs) end
end

-- ------------------------------------------------------------------------------------------- acknowledgement

local function flushAcks()
  ackScheduled = false
  if ackInFlight then return end
  local ids = sortedIds(unacknowledged)
  if #ids == 0 then return end
  local batch = {}
  for i = 1, math.min(#ids, Config.AckBatchSize) do batch[i] = ids[i] end
  ackInFlight = true
  call('DELETE', '/api/fivem/queue', { ids = batch }, function(status, data, headers, envelope)
    ackInFlight = false
    if status == 200 and data then
      -- Executed now, or ignored (acknowledged before, withdrawn, unknown...): either way settled.
      for _, id in ipairs(data.executed or {}) do unacknowledged[idOf(id)] = nil end
      for _, entry in ipairs(data.ignored or {}) do unacknowledged[idOf(entry.id)] = nil end
      savePending()
      ackBackoff = 0
      if next(unacknowledged) ~= nil then scheduleAck(0) end
      return
    end
    -- Any failure keeps the ids: forgetting one would run its command again when it is listed again.
    -- (The ids come from the platform, so a 422 means the body did not arrive as sent.)
    ackBackoff = failureDelay(status, headers, envelope, ackBackoff)
    log(('acknowledgement failed (status %s); retrying in %ss'):format(status, ackBackoff))
    scheduleAck(ackBackoff * 1000)
  end)
end

scheduleAck = function(delayMs)
  if ackScheduled then return end
  ackScheduled = true
  SetTimeout(delayMs, flushAcks)
end

-- ------------------------------------------------------------------------------------------- players

-- The ids a player may have been sold under: every identifier (license:..., steam:..., discord:...),
-- the same without its prefix, and the server id.
local function playerKeys(source)
  local keys = { tostring(source) }
  for _, identifier in ipairs(GetPlayerIdentifiers(source) or {}) do
    if not identifier:find('^ip:') then
      keys[#keys + 1] = identifier
      local bare = identifier:match('^[^:]+:(.+)$')
      if bare then keys[#keys + 1] = bare end
    end
  end
  return keys
end

local function encodePathSegment(value)
  return (tostring(value):gsub('[^A-Za-z0-9:_.%-]', function(c)
    return ('%%%02X'):format(c:byte())
  end))
end

local function fetchPlayer(playerId, source)
  if playerRequests[playerId] then return end
  playerRequests[playerId] = true
  call('GET', '/api/fivem/queue/online/' .. encodePathSegment(playerId), nil, function(status, data)
    playerRequests[playerId] = nil
    if status == 200 and data then
      waitingPlayers[playerId] = nil
      runCommands(data.commands, source)
    elseif status == 404 then
      waitingPlayers[playerId] = nil
    else
      trace(('commands of player %s could not be fetched (status %s)'):format(playerId, status))
    end
  end)
end

-- Asks for the commands of every online player the platform says has some waiting.
local function servePlayers()
  if next(waitingPlayers) == nil then return end
  for _, player in ipairs(GetPlayers() or {}) do
    local source = tonumber(player)
    for _, key in ipairs(playerKeys(source)) do
      if waitingPlayers[key] then fetchPlayer(key, source) end
    end
  end
end

-- ------------------------------------------------------------------------------------------- polling

local function poll()
  if pollInFlight then return end
  pollInFlight = true
  call('GET', '/api/fivem/queue', nil, function(status, data, headers, envelope)
    pollInFlight = false
    if status == 200 and data then
      pollBackoff = 0
      runCommands(data.commands, nil)
      waitingPlayers = {}
      for _, id in ipairs(data.players or {}) do waitingPlayers[tostring(id)] = true end
      servePlayers()
      nextPollAt = now() + math.max(1, tonumber(data.next_check) or 30) * 1000
      return
    end
    pollBackoff = failureDelay(status, headers, envelope, pollBackoff)
    log(('polling failed (status %s); next try in %ss'):format(status, pollBackoff))
    nextPollAt = now() + pollBackoff * 1000
  end)
end

-- A player who just joined may have bought a moment ago: ask soon, and serve what is already known.
AddEventHandler('playerJoining', function()
  local source = tonumber(source)
  SetTimeout(Config.JoinDelayMs, function()
    if not connected(source) then return end
    for _, key in ipairs(playerKeys(source)) do
      if waitingPlayers[key] then fetchPlayer(key, source) end
    end
    if pollBackoff == 0 then nextPollAt = math.min(nextPollAt, now() + 1000) end
  end)
end)

Citizen.CreateThread(function()
  if baseUrl == '' or secret == '' then
    log('set matjar_url and matjar_fivem_secret in server.cfg (or Config.BaseUrl / Config.Secret)')
    return
  end
  loadPending()
  if next(unacknowledged) ~= nil then scheduleAck(0) end
  log('polling ' .. baseUrl)
  while true do
    if now() >= nextPollAt and not pollInFlight then poll() end
    Citizen.Wait(500)
  end
end)
