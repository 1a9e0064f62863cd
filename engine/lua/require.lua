-- require.lua: module loading for game code.  Resolution (done by the host, which refuses any path that
-- leaves its root): the deliverable's scripts/ then its root, the user's library folders, the engine's
-- own Lua libraries; "a.b.c" and "a/b/c" name the same module.  Built-in modules (cjson) come first.
local error, type, sformat, raw_load = error, type, string.format, load

E.BUILTIN_MODULES = {}   -- name -> function(env) returning the module value

function E.make_require(G)
  local loaded = G.package.loaded
  local preload = G.package.preload
  return function(name)
    if type(name) ~= "string" then
      error(sformat("bad argument #1 to 'require' (string expected, got %s)", type(name)), 2)
    end
    local cached = loaded[name]
    if cached ~= nil then return cached end
    local value
    if type(preload[name]) == "function" then
      value = preload[name](name)
    elseif E.BUILTIN_MODULES[name] then
      value = E.BUILTIN_MODULES[name](G)
    else
      -- the host sees text only: a name that is not UTF-8 cannot name a file of the game anyway
      if not utf8.len(name) then
        error(sformat("module '%s' not found: the name is not valid UTF-8", E.clean_string(E.clip_text(name, 200))), 2)
      end
      local chunkname, source, key = E.host_call(E.host.find_module, name)
      if chunkname == false then error(source, 2) end   -- past the run's file read budget: the host says which
      if chunkname == nil then
        error(sformat("module '%s' not found:%s", name, source), 2)
      end
      cached = loaded[key]
      if cached ~= nil then
        loaded[name] = cached
        return cached
      end
      local fn, err = raw_load(source, "@" .. chunkname, "t", G)
      if not fn then error(sformat("error loading module '%s' from file '%s':\n\t%s", name, chunkname, err), 2) end
      value = fn(name, chunkname)
      if value == nil then value = loaded[key] end
      if value == nil then value = true end
      loaded[key] = value
    end
    if value == nil then value = true end
    loaded[name] = value
    return value
  end
end
