-- wrk script: POST a grade for a random card with a fresh idempotency key each time.
local cards = {}
local counter = 0

function init(args)
  for card in string.gmatch(args[1], "[^,]+") do
    table.insert(cards, card)
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end

function request()
  counter = counter + 1
  local card = cards[math.random(#cards)]
  local key = string.format("bench-%d-%d-%d", math.random(1e9), counter, math.random(1e9))
  local body = string.format('{"rating": %d, "idempotency_key": "%s"}', math.random(4), key)
  return wrk.format("POST", "/api/review/" .. card, {["Content-Type"] = "application/json"}, body)
end
