-- Up Migration
-- Reports that know the match (issue 54, part 3; docs/studios.md "Trust integrity"): the brigading
-- rule of pt_file_reports (Version 10) counts the matches in which a reporter or their party
-- reported a player within 7 days. This index answers it by the player and the reporters, so its
-- cost is the group's reports about the player, not all of the player's reports (a hot player has
-- thousands a day). Only reports that name both a reporter and a match are in it.
CREATE INDEX offenses_player_reporter_idx ON offenses (player_id, reporter_id, created_at)
  WHERE reporter_id IS NOT NULL AND match_id IS NOT NULL;

-- Its two new status reasons: party_report (recorded, a party counts as one reporter) and brigading
-- (held for a moderator).
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice',
                             'rule_hold', 'party_report', 'brigading'));

-- Down Migration
UPDATE offenses SET status_reason = 'reporter_muted' WHERE status_reason = 'party_report';
UPDATE offenses SET status_reason = 'reporter_credibility' WHERE status_reason = 'brigading';
ALTER TABLE offenses
  DROP CONSTRAINT offenses_status_reason_check,
  ADD CONSTRAINT offenses_status_reason_check
    CHECK (status_reason IN ('studio_budget', 'reporter_credibility', 'reporter_muted', 'no_finding', 'notice',
                             'rule_hold'));
DROP INDEX offenses_player_reporter_idx;
