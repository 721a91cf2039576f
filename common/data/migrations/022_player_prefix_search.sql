-- Up Migration
-- Moderators find a player by the start of a serviceId or a gamer tag (issue 25: the queue's filter
-- took only an exact serviceId). LIKE 'prefix%' uses a btree index only with the pattern operator
-- class: one for each. The gamer tag's is on lower(gamer_tag), as its unique index, so the search
-- ignores case. Built in this migration's transaction: on a large players table it holds writes to
-- the table for as long as the build takes (seconds per million rows), so run it off-peak there.
CREATE INDEX players_service_id_prefix_idx ON players (service_id text_pattern_ops);
CREATE INDEX players_gamer_tag_prefix_idx ON players (lower(gamer_tag) text_pattern_ops);

-- Down Migration
DROP INDEX players_gamer_tag_prefix_idx;
DROP INDEX players_service_id_prefix_idx;
