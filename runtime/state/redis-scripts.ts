/**
 * The Lua scripts of the Redis idempotency store (redis-idempotency-store.ts): each operation is
 * one script, so it is atomic on the server and one round trip. The record and slot formats are
 * described there.
 */
/** The claim of one record key: what holds it, or it taken for the lease (an array: kind[, outcome]). */
const CLAIM_FN = `
local function claim(record_key, fp, token, lease)
  local current = redis.call('GET', record_key)
  if current then
    local record = cjson.decode(current)
    if record.fp ~= fp then return {'conflict'} end
    if record.state == 'done' then return {'replay', record.outcome} end
    return {'in_progress'}
  end
  redis.call('SET', record_key, cjson.encode({state = 'pending', fp = fp, token = token}), 'PX', lease)
  return {'claimed'}
end
`;

export const CLAIM = `${CLAIM_FN}
return claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
`;

export const COMPLETE = `
local current = redis.call('GET', KEYS[1])
if current then
  local record = cjson.decode(current)
  if record.token ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], cjson.encode({state = 'done', fp = ARGV[2], token = ARGV[1], outcome = ARGV[3]}), 'PX', ARGV[4])
return 1
`;

export const RELEASE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.token == ARGV[1] and record.state == 'pending' then return redis.call('DEL', KEYS[1]) end
return 0
`;

export const RENEW = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.token == ARGV[1] and record.state == 'pending' then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** A session's slot remembered (slot -> key), its expired slots dropped and, past cap, its oldest. */
const REMEMBER_FN = `
local function remember(hash, slot, key, now, ttl, cap)
  redis.call('HSET', hash, slot, cjson.encode({k = key, c = now, e = now + ttl}))
  local fields = redis.call('HGETALL', hash)
  local live = {}
  for i = 1, #fields, 2 do
    local entry = cjson.decode(fields[i + 1])
    if entry.e <= now then redis.call('HDEL', hash, fields[i])
    elseif fields[i] ~= slot then table.insert(live, {fields[i], entry.c}) end
  end
  table.sort(live, function(a, b) return a[2] > b[2] end)
  for i = cap, #live do redis.call('HDEL', hash, live[i][1]) end
  if redis.call('PTTL', hash) < ttl then redis.call('PEXPIRE', hash, ttl) end
end
`;

export const REMEMBER = `${REMEMBER_FN}
remember(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
return 1
`;

/**
 * A tool_call write's three steps in one script: the slot's live key read (else the request's,
 * ARGV[2]), the slot remembered with it, and, when it is the request's own key, the claim of that
 * key's record (KEYS[2], its scope computed by the runtime). Answers {remembered or '', had one
 * ('1' or '0'), claim kind[, outcome]}; no claim kind when the slot held another key.
 */
export const CLAIM_UNCERTAIN = `${REMEMBER_FN}${CLAIM_FN}
local now = tonumber(ARGV[3])
local remembered = nil
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local entry = cjson.decode(current)
  if entry.e > now then remembered = entry.k end
end
local key = remembered or ARGV[2]
remember(KEYS[1], ARGV[1], key, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
local had = remembered and '1' or '0'
if key ~= ARGV[2] then return {key, had} end
local taken = claim(KEYS[2], ARGV[6], ARGV[7], ARGV[8])
return {key, had, taken[1], taken[2]}
`;

export const FORGET = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
if ARGV[2] ~= '' and cjson.decode(current).k ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
`;

export const STORE_ID = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then return ARGV[1] end
return redis.call('GET', KEYS[1])
`;

export const CONSUME = `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 'fresh' end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 'same' end
return 'used'
`;
