fx_version 'cerulean'
game 'gta5'
lua54 'yes'

name 'matjar'
description 'Runs the in-game commands of purchases made in a Matjar store, each exactly once.'
version '1.0.0'

server_scripts {
  'config.lua',
  'server.lua',
}
