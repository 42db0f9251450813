-- For tests/e2e/lua.sh: Lua's errors, pcall and coroutine.yield, which
-- the interpreter carries out by longjmp (built as C) or by C++ throw
-- (built as C++), with known counts: 40 errors raised by error() six Lua
-- calls deep, one type error, 60 yields, each caught or resumed.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function thrower(d) if d == 0 then error("boom") end return 1 + thrower(d - 1) end
local caught = 0
for _ = 1, 40 do if not pcall(thrower, 6) then caught = caught + 1 end end
local co = coroutine.wrap(function() for i = 1, 60 do coroutine.yield(i) end end)
local sum = 0
for _ = 1, 60 do sum = sum + co() end
local t = {}
for i = 1, 300 do t[#t + 1] = string.format("%d:%s", i, tostring(i * 3)) end
table.sort(t)
local ok, err = pcall(function() local x = nil; return x.y end)
print(caught, sum, fib(15), #t, ok, err ~= nil)
