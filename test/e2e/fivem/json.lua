-- A small JSON encoder/decoder for the harness: FiveM gives resources a global `json`; plain Lua has none.
local json = {}

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function isArray(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) ~= 'integer' or k < 1 then return false end
    n = n + 1
  end
  for i = 1, n do if t[i] == nil then return false end end
  return true, n
end

local function encode(value)
  local kind = type(value)
  if value == nil or value == json.null then return 'null' end
  if kind == 'boolean' then return tostring(value) end
  if kind == 'number' then
    if value ~= value or value == math.huge or value == -math.huge then error('cannot encode ' .. tostring(value)) end
    local int = math.tointeger(value)
    if int then return string.format('%d', int) end
    return string.format('%.14g', value)
  end
  if kind == 'string' then
    return '"' .. value:gsub('[%c"\\]', function(c) return escapes[c] or string.format('\\u%04x', c:byte()) end) .. '"'
  end
  if kind == 'table' then
    local array, n = isArray(value)
    local parts = {}
    if array and (n > 0 or next(value) == nil) then
      for i = 1, n do parts[i] = encode(value[i]) end
      return '[' .. table.concat(parts, ',') .. ']'
    end
    for k, v in pairs(value) do parts[#parts + 1] = encode(tostring(k)) .. ':' .. encode(v) end
    table.sort(parts)
    return '{' .. table.concat(parts, ',') .. '}'
  end
  error('cannot encode a ' .. kind)
end

json.null = setmetatable({}, { __tostring = function() return 'null' end })
json.encode = encode

function json.decode(text)
  local pos = 1
  local function fail(what) error(('json: %s at %d'):format(what, pos)) end
  local function skip() pos = text:find('[^ \t\r\n]', pos) or #text + 1 end
  local value
  local function str()
    local out, i = {}, pos + 1
    while true do
      local c = text:sub(i, i)
      if c == '' then fail('unterminated string') end
      if c == '"' then pos = i + 1; return table.concat(out) end
      if c == '\\' then
        local e = text:sub(i + 1, i + 1)
        local map = { b = '\b', f = '\f', n = '\n', r = '\r', t = '\t', ['"'] = '"', ['\\'] = '\\', ['/'] = '/' }
        if e == 'u' then
          out[#out + 1] = utf8.char(tonumber(text:sub(i + 2, i + 5), 16)); i = i + 6
        elseif map[e] then out[#out + 1] = map[e]; i = i + 2
        else fail('bad escape') end
      else out[#out + 1] = c; i = i + 1 end
    end
  end
  function value()
    skip()
    local c = text:sub(pos, pos)
    if c == '{' then
      local obj = {}; pos = pos + 1; skip()
      if text:sub(pos, pos) == '}' then pos = pos + 1; return obj end
      while true do
        skip(); if text:sub(pos, pos) ~= '"' then fail('expected a key') end
        local k = str(); skip()
        if text:sub(pos, pos) ~= ':' then fail('expected :') end
        pos = pos + 1
        local v = value()
        obj[k] = v
        skip(); local d = text:sub(pos, pos); pos = pos + 1
        if d == '}' then return obj end
        if d ~= ',' then fail('expected , or }') end
      end
    elseif c == '[' then
      local arr = {}; pos = pos + 1; skip()
      if text:sub(pos, pos) == ']' then pos = pos + 1; return arr end
      while true do
        arr[#arr + 1] = value(); skip()
        local d = text:sub(pos, pos); pos = pos + 1
        if d == ']' then return arr end
        if d ~= ',' then fail('expected , or ]') end
      end
    elseif c == '"' then return str()
    elseif text:sub(pos, pos + 3) == 'true' then pos = pos + 4; return true
    elseif text:sub(pos, pos + 4) == 'false' then pos = pos + 5; return false
    elseif text:sub(pos, pos + 3) == 'null' then pos = pos + 4; return nil
    else
      local num = text:match('^-?%d+%.?%d*[eE]?[-+]?%d*', pos)
      if not num or num == '' then fail('unexpected character') end
      pos = pos + #num
      return math.tointeger(tonumber(num)) or tonumber(num)
    end
  end
  local result = value()
  skip()
  if pos <= #text then fail('trailing data') end
  return result
end

return json
