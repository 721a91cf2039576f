-- Version: 1
-- pt_shard_of(key text, shards int): the queue shard of a key, the same number
-- common/queues/shards.ts shardOf gives (FNV-1a, 32 bits, over the key's characters, mod the count),
-- so the report statement can group the offenses of a batch by the shard their player's jobs go to.
-- Keys are ASCII (player ids), whose UTF-8 bytes are the UTF-16 units shardOf reads; a test holds
-- the two equal.
CREATE OR REPLACE FUNCTION pt_shard_of(key text, shards int) RETURNS int
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b bytea := convert_to(key, 'UTF8');
  h bigint := 2166136261;
BEGIN
  IF shards <= 1 THEN
    RETURN 0;
  END IF;
  FOR i IN 0 .. length(b) - 1 LOOP
    h := ((h # get_byte(b, i)) * 16777619) & 4294967295;
  END LOOP;
  RETURN (h % shards)::int;
END;
$$;
