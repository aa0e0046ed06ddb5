Config = {}

-- The platform's address (its PUBLIC_BASE_URL), without a trailing slash.
-- A `set matjar_url "https://..."` line in server.cfg takes precedence.
Config.BaseUrl = 'https://shop.example.com'

-- This game server's secret, from `npm run fivem-secret -- create --store ID --name NAME`.
-- Prefer `set matjar_fivem_secret "fvm_..."` in server.cfg (never `sets`: that would publish it),
-- which takes precedence and keeps the secret out of this file.
Config.Secret = ''

-- Acknowledgements are gathered for this long before one DELETE carries them all (milliseconds).
Config.AckDelayMs = 1000
-- At most this many ids per acknowledgement (the platform accepts up to 500).
Config.AckBatchSize = 100

-- Back-off after a failed request: starts here and doubles up to the maximum (seconds).
Config.BackoffStartSeconds = 5
Config.BackoffMaxSeconds = 300

-- How soon after a player joins their commands are asked for (milliseconds).
Config.JoinDelayMs = 2000

-- Commands with an inventory condition ("needs N free slots") run only when this returns at least N
-- for the player. Return nil when unknown (the command then runs). Example for ox_inventory:
--   Config.FreeSlots = function(source)
--     local inv = exports.ox_inventory:GetInventory(source)
--     if not inv then return nil end
--     local used = 0
--     for _ in pairs(inv.items) do used = used + 1 end
--     return inv.slots - used
--   end
Config.FreeSlots = nil

-- Ids of commands that ran but whose acknowledgement has not been confirmed are kept in this file of
-- the resource, so a restart does not run them again.
Config.PendingFile = 'pending_acks.json'

-- Print every request and command.
Config.Debug = false
