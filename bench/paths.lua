-- wrk script: GET each path of a comma-separated list (the first argument after --) in turn,
-- with the headers given by -H (a browser's Accept and session cookie, say).
local paths = {}
local next_index = 0

function init(args)
  for path in string.gmatch(args[1], "[^,]+") do
    table.insert(paths, path)
  end
  next_index = math.random(#paths) - 1
end

function request()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index])
end
