-- wrk script: POST the same JSON body (the first argument after --) to the URL's path.
function init(args)
  wrk.method = "POST"
  wrk.body = args[1]
  wrk.headers["Content-Type"] = "application/json"
end
